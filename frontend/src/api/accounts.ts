// Accounts (docs/contracts.md "Accounts"): who is signed in, signing in and out, sign-up,
// invitations, one's own password and sessions; and the administrators' /api/admin.
import { ApiError, http, query } from './http'
import type {
  AuditPage,
  AuthStatus,
  Ended,
  InvitationCreate,
  InvitationCreated,
  InvitationInfo,
  InvitationPublic,
  Me,
  SignInSession,
  SignupResult,
  UsageRow,
  UserCreate,
  UserPublic,
  UserUpdate,
} from './schema'

/** A request of the sign-in pages: never the 401 prompt (a wrong password is an answer). */
async function publicCall<T>(method: string, url: string, body?: unknown): Promise<T> {
  let response: Response
  try {
    response = await fetch(url, {
      method,
      headers: { Accept: 'application/json', ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    })
  } catch (err) {
    throw new ApiError(err instanceof Error ? err.message : String(err), 0, 'network')
  }
  const text = await response.text()
  const data = text ? (JSON.parse(text) as unknown) : undefined
  if (!response.ok) {
    const error = (data as { error?: { message?: string; code?: string; fields?: [] } } | undefined)?.error
    throw new ApiError(error?.message ?? `${response.status}`, response.status, error?.code ?? `http_${response.status}`, error?.fields ?? [])
  }
  return data as T
}

export const authApi = {
  status: () => publicCall<AuthStatus>('GET', '/api/auth/status'),
  login: (username: string, password: string) => publicCall<AuthStatus>('POST', '/api/auth/login', { username, password }),
  logout: () => publicCall<void>('POST', '/api/auth/logout'),
  signup: (username: string, password: string) => publicCall<SignupResult>('POST', '/api/auth/signup', { username, password }),
  invitation: (token: string) => publicCall<InvitationInfo>('GET', `/api/auth/invitations/${encodeURIComponent(token)}`),
  acceptInvitation: (token: string, username: string, password: string) =>
    publicCall<Me>('POST', `/api/auth/invitations/${encodeURIComponent(token)}/accept`, { username, password }),
  me: () => http.get<Me>('/api/auth/me'),
  sessions: () => http.get<SignInSession[]>('/api/auth/sessions'),
  endSession: (id: number) => http.delete<void>(`/api/auth/sessions/${id}`),
  logoutEverywhere: () => http.post<Ended>('/api/auth/logout-everywhere'),
  changePassword: (currentPassword: string, newPassword: string) =>
    http.post<Ended>('/api/auth/password', { currentPassword, newPassword }),
}

export const adminApi = {
  users: () => http.get<UserPublic[]>('/api/admin/users'),
  createUser: (body: UserCreate) => http.post<UserPublic>('/api/admin/users', body),
  updateUser: (id: number, body: UserUpdate) => http.patch<UserPublic>(`/api/admin/users/${id}`, body),
  resetPassword: (id: number, password: string) => http.post<UserPublic>(`/api/admin/users/${id}/password`, { password }),
  deleteUser: (id: number) => http.delete<void>(`/api/admin/users/${id}`),
  invitations: () => http.get<InvitationPublic[]>('/api/admin/invitations'),
  invite: (body: InvitationCreate) => http.post<InvitationCreated>('/api/admin/invitations', body),
  revokeInvitation: (id: number) => http.delete<void>(`/api/admin/invitations/${id}`),
  usage: (days: number) => http.get<UsageRow[]>(`/api/admin/usage${query({ days })}`),
  audit: (params: { limit?: number; before?: number | null; action?: string | null }) =>
    http.get<AuditPage>(`/api/admin/audit${query(params)}`),
}
