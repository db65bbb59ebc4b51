// The optional access token. After a 401 the page asks for it once, signs in through
// POST /api/auth/login (an HttpOnly cookie, so later requests and streams carry it), and also
// keeps it for this tab in sessionStorage to send as a bearer header.
import { reactive } from 'vue'

const KEY = 'agentchat.token'

export const authState = reactive({ asking: false, uiReady: false, error: '' })
let pending: Promise<boolean> | null = null
let resolvePending: ((ok: boolean) => void) | null = null

export function currentToken(): string | null {
  try {
    return sessionStorage.getItem(KEY)
  } catch {
    return null
  }
}

export function authHeaders(): Record<string, string> {
  const token = currentToken()
  return token ? { Authorization: `Bearer ${token}` } : {}
}

export function forgetToken(): void {
  try {
    sessionStorage.removeItem(KEY)
  } catch {
    /* storage unavailable */
  }
}

/** Resolves true once the person has signed in (one prompt shared by all callers). */
export function ensureToken(): Promise<boolean> {
  if (!authState.uiReady) return Promise.resolve(false)
  if (!pending) {
    authState.asking = true
    authState.error = ''
    pending = new Promise<boolean>((resolve) => (resolvePending = resolve))
  }
  return pending
}

function settle(ok: boolean): void {
  authState.asking = false
  resolvePending?.(ok)
  pending = null
  resolvePending = null
}

/** Check the token with the server; on success every waiting request is retried. */
export async function provideToken(token: string | null): Promise<void> {
  const value = token?.trim()
  if (!value) return settle(false)
  const response = await fetch('/api/auth/login', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
    body: JSON.stringify({ token: value }),
  }).catch(() => null)
  if (!response?.ok) {
    const body = await response?.json().catch(() => null)
    authState.error = body?.error?.message ?? 'Sign-in failed'
    return
  }
  try {
    sessionStorage.setItem(KEY, value)
  } catch {
    /* the cookie is enough */
  }
  settle(true)
}
