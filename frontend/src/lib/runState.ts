// The state of one run (one assistant message) and the reducer that applies run events to it.
// Live streams, the /state snapshot and stored logs all go through applyEvent, so a replayed
// message looks exactly like a live one.
import type { PendingClarify } from '@/api/schema'
import { stripHermesDecoration } from './decoration'
import { annotateRun, type RunStep } from './steps'

export type { PendingClarify }

export type RunStatus = 'RUNNING' | 'SUCCESS' | 'FAILED' | 'STOPPED'

/** One event of a run stream as the page receives it: the SSE id, name and parsed data. */
export interface RunEvent {
  id: number | null
  event: string
  data: Record<string, unknown>
}

/** A node_stream event's payload, or a stored log line (same fields). */
export interface NodeItem {
  kind: string
  content: string | null
  toolName?: string | null
  meta?: unknown
}

export interface ToolCall {
  index: number
  /** hermes' id of the call; results pair with their call by it (calls run concurrently). */
  toolCallId: string | null
  name: string
  /** The one-line preview of the arguments. */
  args: string
  /** The real arguments (meta.args), when the event carried them. */
  input: Record<string, unknown> | null
  result: string | null
  durationMs: number | null
  done: boolean
}

export interface TodoItem {
  id: string
  content: string
  status: string
}

export interface ClarifyAnswered {
  clarifyId: string
  question: string
  answer: string
}

export interface RunState {
  runId: string | null
  messageId: number | null
  status: RunStatus
  thinking: string
  statusLine: string
  currentTool: ToolCall | null
  toolHistory: ToolCall[]
  toolCount: number
  steps: RunStep[]
  todos: TodoItem[]
  pendingClarify: PendingClarify | null
  clarifications: ClarifyAnswered[]
  answer: string
  error: string | null
  summaries: string[]
  usage: unknown
  startedAt: number | null
  endedAt: number | null
  lastEventId: number
}

export function emptyRunState(runId: string | null = null, startedAt: number | null = null): RunState {
  return {
    runId,
    messageId: null,
    status: 'RUNNING',
    thinking: '',
    statusLine: '',
    currentTool: null,
    toolHistory: [],
    toolCount: 0,
    steps: [],
    todos: [],
    pendingClarify: null,
    clarifications: [],
    answer: '',
    error: null,
    summaries: [],
    usage: null,
    startedAt,
    endedAt: null,
    lastEventId: 0,
  }
}

export const TERMINAL_EVENTS = new Set(['workflow_complete', 'workflow_error'])

export function isTerminal(status: string): status is Exclude<RunStatus, 'RUNNING'> {
  return status === 'SUCCESS' || status === 'FAILED' || status === 'STOPPED'
}

function str(value: unknown): string {
  if (value === null || value === undefined) return ''
  return typeof value === 'string' ? value : JSON.stringify(value)
}

function record(value: unknown): Record<string, unknown> {
  return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {}
}

/** The todo list of a todo_update: its content is the full list as JSON. */
export function parseTodos(content: string | null): TodoItem[] | null {
  let list: unknown
  try {
    list = JSON.parse(content ?? '')
  } catch {
    return null
  }
  if (!Array.isArray(list)) return null
  return list.map((item, i) => {
    const r = record(item)
    return { id: str(r.id ?? i + 1), content: str(r.content), status: str(r.status || 'pending') }
  })
}

function parseClarify(meta: Record<string, unknown>): PendingClarify | null {
  const clarifyId = str(meta.clarifyId)
  if (!clarifyId) return null
  const choices = Array.isArray(meta.choices) ? meta.choices.map(str) : []
  return { clarifyId, question: str(meta.question), choices }
}

function onToolCall(s: RunState, name: string, args: string, meta: Record<string, unknown>): RunState {
  const input = meta.args && typeof meta.args === 'object' ? record(meta.args) : null
  const call: ToolCall = {
    index: s.toolHistory.length,
    toolCallId: str(meta.toolCallId) || null,
    name,
    args,
    input,
    result: null,
    durationMs: null,
    done: false,
  }
  return { ...s, currentTool: call, toolHistory: [...s.toolHistory, call], toolCount: s.toolCount + 1 }
}

/** The open call a result belongs to: by toolCallId, else (old logs) the last open one of the name. */
function callOf(history: ToolCall[], toolCallId: string, name: string): number {
  for (let i = history.length - 1; i >= 0; i--) {
    const call = history[i]
    if (call.done) continue
    if (toolCallId ? call.toolCallId === toolCallId : !name || call.name === name) return i
  }
  return -1
}

function lastOpen(history: ToolCall[]): ToolCall | null {
  for (let i = history.length - 1; i >= 0; i--) if (!history[i].done) return history[i]
  return null
}

function onToolResult(s: RunState, name: string, result: string, meta: Record<string, unknown>): RunState {
  const toolCallId = str(meta.toolCallId)
  const durationMs = typeof meta.durationMs === 'number' ? meta.durationMs : null
  const history = [...s.toolHistory]
  const i = callOf(history, toolCallId, name)
  if (i < 0) {
    const orphan: ToolCall = {
      index: history.length, toolCallId: toolCallId || null, name: name || '?', args: '', input: null,
      result, durationMs, done: true,
    }
    return { ...s, toolHistory: [...history, orphan], toolCount: s.toolCount + 1 }
  }
  history[i] = { ...history[i], result, durationMs, done: true }
  return { ...s, toolHistory: history, currentTool: lastOpen(history) }
}

function onClarifyAnswered(s: RunState, meta: Record<string, unknown>): RunState {
  const clarifyId = str(meta.clarifyId)
  const question = s.pendingClarify?.clarifyId === clarifyId ? s.pendingClarify.question : str(meta.question)
  const done = { clarifyId, question, answer: str(meta.answer) }
  const pendingClarify = s.pendingClarify && s.pendingClarify.clarifyId !== clarifyId ? s.pendingClarify : null
  return { ...s, pendingClarify, clarifications: [...s.clarifications, done] }
}

/** Apply one node_stream item (kind/content/toolName/meta) — shared by events and stored logs. */
export function applyNodeStream(s: RunState, item: NodeItem): RunState {
  return annotateRun(s, applyItem(s, item))
}

function applyItem(s: RunState, item: NodeItem): RunState {
  const content = item.content ?? ''
  const toolName = item.toolName ?? ''
  const meta = record(item.meta)
  switch (item.kind) {
    case 'thinking':
      return { ...s, thinking: s.thinking + content }
    case 'status':
      return { ...s, statusLine: stripHermesDecoration(content) }
    case 'tool_call':
      return onToolCall(s, toolName, content, meta)
    case 'tool_result':
      return onToolResult(s, toolName, content, meta)
    case 'todo_update': {
      const todos = parseTodos(item.content)
      return todos ? { ...s, todos } : s
    }
    case 'clarify_request': {
      const clarify = parseClarify(meta)
      return clarify ? { ...s, pendingClarify: clarify } : s
    }
    case 'clarify_answered':
      return onClarifyAnswered(s, meta)
    case 'answer_delta':
      return { ...s, answer: s.answer + content }
    default:
      return s
  }
}

function finish(s: RunState, status: RunStatus, at: number | null): RunState {
  return { ...s, status, currentTool: null, pendingClarify: null, statusLine: '', endedAt: s.endedAt ?? at }
}

function nodeItem(data: Record<string, unknown>): NodeItem {
  return { kind: str(data.kind), content: str(data.content), toolName: str(data.toolName), meta: data.meta }
}

/**
 * Apply one run event. Events whose id is not above lastEventId are ignored (exactly-once on
 * reconnect); events after the terminal one are ignored too. `at` is the receive time (ms).
 */
export function applyEvent(s: RunState, ev: RunEvent, at: number | null = null): RunState {
  if (ev.id !== null && ev.id <= s.lastEventId) return s
  const next = ev.id !== null ? { ...s, lastEventId: ev.id } : s
  if (isTerminal(s.status)) return next
  const started = next.startedAt === null && at !== null ? { ...next, startedAt: at } : next
  const data = ev.data
  switch (ev.event) {
    case 'node_stream':
      return applyNodeStream(started, nodeItem(data))
    case 'context_compacted':
      return { ...started, summaries: [...started.summaries, str(data.summary)] }
    case 'workflow_complete': {
      const finalText = typeof data.finalText === 'string' ? data.finalText : started.answer
      return { ...finish(started, 'SUCCESS', at), answer: finalText, usage: data.usage ?? started.usage }
    }
    case 'workflow_error': {
      const status: RunStatus = data.stopped ? 'STOPPED' : 'FAILED'
      return { ...finish(started, status, at), error: str(data.message) || null }
    }
    default:
      return started
  }
}

/** "12 s", "3 min 4 s" — the duration of a run for its one-line summary. */
export function durationSeconds(s: Pick<RunState, 'startedAt' | 'endedAt'>, now = Date.now()): number | null {
  if (s.startedAt === null) return null
  const end = s.endedAt ?? now
  return Math.max(0, Math.round((end - s.startedAt) / 1000))
}
