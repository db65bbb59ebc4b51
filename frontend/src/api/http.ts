// fetch wrapper: JSON in and out, the API's error text as ApiError; on 401 the sign-in page
// (with accounts) or the bearer token prompt (without).
import { ensureToken, authHeaders, forgetToken } from './auth'
import { signInAgain } from '@/lib/accounts/session'

/** One refused field of a request (422): where, a stable code, the API's words, the bound. */
export interface FieldError {
  field: string
  code: string
  message: string
  limit?: number | null
}

export class ApiError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly code: string,
    readonly fields: FieldError[] = [],
  ) {
    super(message)
    this.name = 'ApiError'
  }
}

async function errorFrom(response: Response): Promise<ApiError> {
  let code = 'http_' + response.status
  let message = `${response.status} ${response.statusText}`.trim()
  let fields: FieldError[] = []
  try {
    const body = await response.json()
    if (body?.error?.message) message = String(body.error.message)
    if (body?.error?.code) code = String(body.error.code)
    if (Array.isArray(body?.error?.fields)) fields = body.error.fields as FieldError[]
  } catch {
    /* not JSON: keep the status line */
  }
  return new ApiError(message, response.status, code, fields)
}

/** fetch with the bearer token; on a 401 asks for the token once, or with accounts goes to
 * the sign-in page (the 401 is the answer then). */
export async function authFetch(url: string, init: RequestInit = {}): Promise<Response> {
  const send = () =>
    fetch(url, { ...init, headers: { ...(init.headers as Record<string, string>), ...authHeaders() } })
  let response = await send()
  if (response.status === 401) {
    forgetToken()
    if (await signInAgain()) return response
    if (await ensureToken()) response = await send()
  }
  return response
}

export async function request<T>(method: string, url: string, body?: unknown): Promise<T> {
  const init: RequestInit = { method, headers: { Accept: 'application/json' } }
  if (body !== undefined) {
    init.body = JSON.stringify(body)
    init.headers = { ...init.headers, 'Content-Type': 'application/json' }
  }
  let response: Response
  try {
    response = await authFetch(url, init)
  } catch (err) {
    throw new ApiError(err instanceof Error ? err.message : String(err), 0, 'network')
  }
  if (!response.ok) throw await errorFrom(response)
  if (response.status === 204) return undefined as T
  const text = await response.text()
  return (text ? JSON.parse(text) : undefined) as T
}

export const http = {
  get: <T>(url: string) => request<T>('GET', url),
  post: <T>(url: string, body?: unknown) => request<T>('POST', url, body ?? {}),
  put: <T>(url: string, body?: unknown) => request<T>('PUT', url, body ?? {}),
  patch: <T>(url: string, body?: unknown) => request<T>('PATCH', url, body ?? {}),
  delete: <T>(url: string) => request<T>('DELETE', url),
}

export function query(params: Record<string, string | number | boolean | null | undefined>): string {
  const q = new URLSearchParams()
  for (const [key, value] of Object.entries(params)) {
    if (value !== null && value !== undefined && value !== '') q.set(key, String(value))
  }
  const s = q.toString()
  return s ? '?' + s : ''
}
