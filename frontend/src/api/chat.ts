// Chat sessions, messages and versions (docs/contracts.md "Chat REST API").
import { http, query } from './http'
import type {
  Message,
  MessagePage,
  Session,
  SessionDetail,
  RecentToolCall,
  SessionMemory,
  SessionPage,
  Version,
} from './types'

const base = '/api/chat'

export const chatApi = {
  listSessions: (params: { status?: string; q?: string; limit?: number; cursor?: string | null } = {}) =>
    http.get<SessionPage>(`${base}/sessions${query(params)}`),
  createSession: (body: { title?: string; modelId?: number | null; skillFolder?: string | null } = {}) =>
    http.post<{ sessionId: number; sessionUuid: string; session: Session }>(`${base}/sessions`, body),
  getSession: (id: number) => http.get<SessionDetail>(`${base}/sessions/${id}`),
  olderMessages: (id: number, before: number, limit = 50) =>
    http.get<MessagePage>(`${base}/sessions/${id}/messages${query({ before, limit })}`),
  updateSession: (id: number, body: Partial<Pick<Session, 'title' | 'modelId' | 'skillFolder' | 'status'>>) =>
    http.patch<Session>(`${base}/sessions/${id}`, body),
  deleteSession: (id: number) => http.delete<void>(`${base}/sessions/${id}`),
  exportUrl: (id: number, format: 'md' | 'json', branch: 'active' | 'all' = 'active') =>
    `${base}/sessions/${id}/export${query({ format, branch })}`,
  versions: (messageId: number) => http.get<Version[]>(`${base}/messages/${messageId}/versions`),
  activate: (messageId: number) => http.post<{ activeMessageId: number }>(`${base}/messages/${messageId}/activate`),
  editMessage: (messageId: number, content: string) =>
    http.patch<{ newMessageId: number }>(`${base}/messages/${messageId}`, { content }),
  reset: (id: number) => http.post<unknown>(`${base}/sessions/${id}/reset`, { keepHistory: true }),
  getMemory: (id: number) => http.get<SessionMemory>(`${base}/sessions/${id}/memory`),
  putMemory: (id: number, body: { memory?: string; user?: string }) =>
    http.put<SessionMemory>(`${base}/sessions/${id}/memory`, body),
  recentToolCalls: (id: number, limit = 30) =>
    http.get<RecentToolCall[]>(`${base}/sessions/${id}/tool-calls${query({ limit })}`),
  stats: (id: number) => http.get<Record<string, unknown>>(`${base}/sessions/${id}/stats`),
}

export type { Message }
