import type { Log, Message } from '@/api/schema'

export function log(seq: number, kind: Log['kind'], content = '', extra: Partial<Log> = {}): Log {
  return { seq, kind, content, toolName: null, meta: null, createdAt: `2025-01-01T00:00:${String(seq).padStart(2, '0')}Z`, ...extra }
}

export function message(id: number, fields: Partial<Message> = {}): Message {
  return {
    id, sessionId: 1, parentId: id > 1 ? id - 1 : null, role: 'USER', content: `m${id}`, status: 'SENT', isActive: true,
    branchOrder: 0, siblingCount: 1, siblingIndex: 0, runId: null, modelId: null, skillFolder: null, error: null,
    createdAt: '2025-01-01T00:00:00Z', completedAt: null, usage: null, logs: [], attachments: [], ...fields,
  }
}
