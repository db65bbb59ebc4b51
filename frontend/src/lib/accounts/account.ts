// Who is signed in, and where the page may go. Without accounts ("single": the token or the
// machine's own user) nothing here changes the page; with accounts every page but the
// sign-in, sign-up and invitation pages needs a signed-in person, the Admin page an
// administrator. A 401 sends the person to /signin and back to where they were afterwards.
import { reactive } from 'vue'
import type { AuthStatus, Me } from '@/api/schema'

export interface AccountState {
  /** The server answered /api/auth/status at least once. */
  loaded: boolean
  mode: 'single' | 'accounts'
  authenticated: boolean
  user: Me | null
  signup: AuthStatus['signup']
  singleSignOn: string | null
  /** The page is on its way to the sign-in page (the requests failing meanwhile stay quiet). */
  leaving: boolean
}

export const account = reactive<AccountState>({
  loaded: false,
  mode: 'single',
  authenticated: true,
  user: null,
  signup: 'off',
  singleSignOn: null,
  leaving: false,
})

export function applyStatus(status: AuthStatus, state: AccountState = account): void {
  state.loaded = true
  state.mode = status.mode
  state.authenticated = status.authenticated
  state.user = status.user ?? null
  state.signup = status.signup
  state.singleSignOn = status.singleSignOn ?? null
}

export const inAccounts = (state: AccountState = account): boolean => state.mode === 'accounts'

/** An administrator: with accounts the admin role; without, the server's one person. */
export const isAdmin = (state: AccountState = account): boolean =>
  state.mode === 'single' || (state.authenticated && state.user?.role === 'admin')

/** A place inside this page to return to: a path on this origin ("/chat/3?x"), never
 * "//host", "/\\host", a scheme, or the sign-in pages themselves. */
export function safeNext(raw: unknown): string {
  if (typeof raw !== 'string' || !raw.startsWith('/') || raw.startsWith('//') || raw.startsWith('/\\')) return '/chat'
  if (/[\u0000-\u001f]/.test(raw)) return '/chat'
  const path = raw.split(/[?#]/)[0]
  if (PUBLIC_PATHS.some((p) => path === p || path.startsWith(p + '/'))) return '/chat'
  return raw
}

export const PUBLIC_PATHS = ['/signin', '/signup', '/invite']

/** The sign-in page's address that comes back to `next` afterwards. */
export function signInPath(next: string): string {
  const back = safeNext(next)
  return back === '/chat' ? '/signin' : `/signin?next=${encodeURIComponent(back)}`
}

export interface RouteLike {
  fullPath: string
  meta: { public?: boolean; admin?: boolean }
}

/** Where a navigation must go instead (null: it may go where it goes). */
export function redirectFor(to: RouteLike, state: AccountState = account): string | null {
  if (state.mode !== 'accounts') return to.meta.public ? '/chat' : null
  const signedIn = state.authenticated && state.user !== null
  if (!signedIn) return to.meta.public ? null : signInPath(to.fullPath)
  if (/^\/(signin|signup)(\/|\?|$)/.test(to.fullPath)) return '/chat'
  if (to.meta.admin && state.user?.role !== 'admin') return '/chat'
  return null
}
