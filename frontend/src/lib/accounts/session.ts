// Loading who is signed in, and the moves that change it: each ends in a whole new page load,
// so nothing of one person's page (chats, drafts in memory, streams) stays for the next.
import { authApi } from '@/api/accounts'
import { dropAllDrafts } from '@/lib/chat/drafts'
import { account, applyStatus, safeNext, signInPath } from './account'

/** Where the page goes (a test replaces it: jsdom cannot navigate). */
export const navigation = {
  assign: (url: string): void => window.location.assign(url),
  here: (): string => window.location.pathname + window.location.search + window.location.hash,
}

let loading: Promise<void> | null = null

/** Ask the server once (later calls share it); a server that cannot be asked keeps the
 * page as it was without accounts. */
export function loadAccount(force = false): Promise<void> {
  if (!loading || force) {
    loading = authApi
      .status()
      .then((status) => applyStatus(status))
      .catch(() => {
        account.loaded = true
      })
  }
  return loading
}

/** A 401 with accounts: to the sign-in page, then back here. Returns false when the server
 * has no accounts (the token prompt answers the 401 then). */
export async function signInAgain(): Promise<boolean> {
  if (account.leaving) return true
  await loadAccount(true)
  if (account.mode !== 'accounts') return false
  account.leaving = true
  navigation.assign(signInPath(navigation.here()))
  return true
}

export function enter(next: unknown): void {
  account.leaving = true
  navigation.assign(safeNext(next))
}

export async function signOut(): Promise<void> {
  await authApi.logout().catch(() => undefined)
  dropAllDrafts()
  account.leaving = true
  navigation.assign('/signin')
}

export async function signOutEverywhere(): Promise<number> {
  const { ended } = await authApi.logoutEverywhere()
  dropAllDrafts()
  account.leaving = true
  navigation.assign('/signin')
  return ended
}
