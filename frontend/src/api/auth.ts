// The optional bearer token: asked for once after a 401, kept in sessionStorage for the tab.
import { reactive } from 'vue'

const KEY = 'agentchat.token'

export const authState = reactive({ asking: false, uiReady: false })
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

/** Resolves true once the person has typed a token (one prompt shared by all callers). */
export function ensureToken(): Promise<boolean> {
  if (!authState.uiReady) return Promise.resolve(false)
  if (!pending) {
    authState.asking = true
    pending = new Promise<boolean>((resolve) => (resolvePending = resolve))
  }
  return pending
}

export function provideToken(token: string | null): void {
  if (token) sessionStorage.setItem(KEY, token.trim())
  authState.asking = false
  resolvePending?.(Boolean(token))
  pending = null
  resolvePending = null
}
