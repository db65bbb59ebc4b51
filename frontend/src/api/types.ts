// Wire types of the API (docs/contracts.md). JSON is camelCase; ids are numbers except runId.

export type MessageRole = 'USER' | 'ASSISTANT' | 'SYSTEM'
export type MessageStatus = 'SENT' | 'RUNNING' | 'SUCCESS' | 'FAILED' | 'STOPPED' | 'SUMMARY' | 'RESET'
export type SessionStatus = 'ACTIVE' | 'ARCHIVED'

export interface Session {
  id: number
  sessionUuid: string
  title: string | null
  modelId: number | null
  skillFolder: string | null
  hermesSession?: string | null
  status: SessionStatus
  createdAt: string
  updatedAt: string | null
  lastMessageAt: string | null
  lastSummarizedAt: string | null
  lastMessagePreview: string | null
  hasActiveRun: boolean
  waitingForInput: boolean
  activeRunId: string | null
}

export interface Log {
  seq: number
  kind: string
  content: string | null
  toolName: string | null
  meta: Record<string, unknown> | null
  createdAt: string | null
}

export interface Message {
  id: number
  sessionId: number
  parentId: number | null
  role: MessageRole
  content: string
  status: MessageStatus
  isActive: boolean
  branchOrder: number
  siblingCount: number
  siblingIndex: number
  runId: string | null
  modelId: number | null
  skillFolder: string | null
  error: string | null
  createdAt: string
  completedAt: string | null
  usage: Record<string, unknown> | null
  logs: Log[]
}

export interface SessionPage {
  items: Session[]
  nextCursor: string | null
  hasMore: boolean
}

export interface SessionDetail {
  session: Session
  messages: Message[]
  hasMore: boolean
}

export interface MessagePage {
  messages: Message[]
  hasMore: boolean
}

export interface Version {
  messageId: number
  branchOrder: number
  isActive: boolean
  role: MessageRole
  status: MessageStatus
  createdAt: string
  preview: string
}

export interface StartRunBody {
  message: string
  modelId?: number | null
  skillFolder?: string | null
  maxIterations?: number
  parentMessageId?: number | null
}

export interface StartRunResult {
  runId: string
  messageId: number
  userMessageId: number
}

export interface PendingClarify {
  clarifyId: string
  question: string
  choices: string[] | null
}

export interface RunSnapshot {
  runId: string
  sessionId: number
  messageId: number
  status: string
  eventCount: number
  pendingClarify: PendingClarify | null
  logs: Log[]
}

export interface MemoryBlock {
  content: string
  entries?: number
  chars?: number
  charLimit?: number
}

/** GET /api/chat/sessions/{id}/tool-calls: the short-term memory view, newest first. */
export interface RecentToolCall {
  messageId: number
  toolCallId: string | null
  toolName: string
  args: unknown
  result: string | null
  resultChars: number
  isError: boolean
  durationMs: number | null
  calledAt: string | null
}

export interface SessionMemory {
  memory: MemoryBlock | null
  user: MemoryBlock | null
}

export type Provider = 'openai-compatible' | 'openai' | 'anthropic' | 'openrouter' | 'ollama'
export type ReasoningEffort = 'none' | 'minimal' | 'low' | 'medium' | 'high' | 'xhigh'

export interface Model {
  id: number
  name: string
  provider: Provider
  baseUrl: string
  modelName: string
  contextLength: number | null
  maxOutputTokens: number | null
  temperature: number | null
  reasoningEffort: ReasoningEffort | null
  fallbackModelId: number | null
  isDefault: boolean
  isBuiltin: boolean
  hasApiKey: boolean
  apiKeyLast4: string | null
  createdAt: string
}

export interface ModelInput {
  name?: string
  provider?: Provider
  baseUrl?: string
  modelName?: string
  contextLength?: number | null
  maxOutputTokens?: number | null
  temperature?: number | null
  reasoningEffort?: ReasoningEffort | null
  fallbackModelId?: number | null
  isDefault?: boolean
  apiKey?: string
}

export interface Skill {
  folderName: string
  name: string
  description: string
  error?: string | null
  content?: string
}

/** One SSE event as the stream delivers it (data already parsed). */
export interface RunEvent {
  id: number | null
  event: string
  data: Record<string, unknown>
}
