// Chat sessions, messages and versions (docs/contracts.md "Chat REST API").
import { http, query } from './http'
import type {
  ActivateResult,
  EditResult,
  MemoryUpdate,
  MessagePage,
  ResetResult,
  Session,
  SessionCreate,
  SessionCreated,
  SessionDetail,
  RecentToolCall,
  SessionMemory,
  SessionPage,
  SessionStats,
  SessionUpdate,
  Version,
} from './schema'

const base = '/api/chat'

export type ExportFormat = 'md' | 'json' | 'zip'
export type ExportBranch = 'active' | 'all'

export const chatApi = {
  listSessions: (params: { status?: string; q?: string; limit?: number; cursor?: string | null } = {}) =>
    http.get<SessionPage>(`${base}/sessions${query(params)}`),
  createSession: (body: SessionCreate = {}) => http.post<SessionCreated>(`${base}/sessions`, body),
  getSession: (id: number) => http.get<SessionDetail>(`${base}/sessions/${id}`),
  olderMessages: (id: number, before: number, limit = 50) =>
    http.get<MessagePage>(`${base}/sessions/${id}/messages${query({ before, limit })}`),
  /** The last messages of the active branch, oldest first (what the server shows as its end). */
  branchEnd: (id: number, limit = 2) => http.get<MessagePage>(`${base}/sessions/${id}/messages${query({ limit })}`),
  updateSession: (id: number, body: SessionUpdate) => http.patch<Session>(`${base}/sessions/${id}`, body),
  deleteSession: (id: number) => http.delete<void>(`${base}/sessions/${id}`),
  /** `zip`: the chat as Markdown and JSON with its attachments (export with files). */
  exportUrl: (id: number, format: ExportFormat, branch: ExportBranch = 'active') =>
    format === 'zip'
      ? `${base}/sessions/${id}/export/files${query({ branch })}`
      : `${base}/sessions/${id}/export${query({ format, branch })}`,
  versions: (messageId: number) => http.get<Version[]>(`${base}/messages/${messageId}/versions`),
  activate: (messageId: number) => http.post<ActivateResult>(`${base}/messages/${messageId}/activate`),
  editMessage: (messageId: number, content: string, attachmentIds?: number[]) =>
    http.patch<EditResult>(`${base}/messages/${messageId}`, attachmentIds ? { content, attachmentIds } : { content }),
  reset: (id: number) => http.post<ResetResult>(`${base}/sessions/${id}/reset`, { keepHistory: true }),
  // The agent's memory: one for every chat (the per-chat path reads the same files).
  getMemory: () => http.get<SessionMemory>('/api/memory'),
  putMemory: (body: MemoryUpdate) => http.put<SessionMemory>('/api/memory', body),
  recentToolCalls: (id: number, limit = 30) =>
    http.get<RecentToolCall[]>(`${base}/sessions/${id}/tool-calls${query({ limit })}`),
  stats: (id: number) => http.get<SessionStats>(`${base}/sessions/${id}/stats`),
}
