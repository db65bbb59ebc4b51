// The state of one run (one assistant message) and the reducer that applies run events to it.
// Live streams, the /state snapshot and stored logs all go through applyEvent, so a replayed
// message looks exactly like a live one.
import type { RunEvent } from '@/api/types'
import { stripHermesDecoration } from './decoration'
import { annotateRun, type RunStep } from './steps'

export type RunStatus = 'RUNNING' | 'SUCCESS' | 'FAILED' | 'STOPPED'

export interface ToolCall {
  index: number
  name: string
  args: string
  result: string | null
  done: boolean
  /** The real arguments (`meta.args`), when the event carried them. */
  input?: unknown
  /** How long the tool ran (`meta.durationMs` of its result). */
  durationMs?: number
}

export interface TodoItem {
  id: string
  content: string
  status: string
}

export interface PendingAsk {
  clarifyId: string
  question: string
  choices: string[]
}

export interface Clarification {
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
  pendingAsk: PendingAsk | null
  clarifications: Clarification[]
  answer: string
  error: string | null
  summaries: string[]
  usage: Record<string, unknown> | null
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
    pendingAsk: null,
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

export function isTerminal(status: string): boolean {
  return status === 'SUCCESS' || status === 'FAILED' || status === 'STOPPED'
}

function str(value: unknown): string {
  if (value === null || value === undefined) return ''
  return typeof value === 'string' ? value : JSON.stringify(value)
}

function record(value: unknown): Record<string, unknown> {
  return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {}
}

/** The todo list from a todo_update content: a JSON list, or {todos: [...]}. */
export function parseTodos(content: unknown): TodoItem[] | null {
  let value: unknown = content
  if (typeof content === 'string') {
    try {
      value = JSON.parse(content)
    } catch {
      return null
    }
  }
  const list = Array.isArray(value) ? value : record(value).todos
  if (!Array.isArray(list)) return null
  return list.map((item, i) => {
    const r = record(item)
    return { id: str(r.id ?? i + 1), content: str(r.content ?? r.text ?? item), status: str(r.status || 'pending') }
  })
}

function parseAsk(meta: Record<string, unknown>): PendingAsk | null {
  const clarifyId = str(meta.clarifyId)
  if (!clarifyId) return null
  const choices = Array.isArray(meta.choices) ? meta.choices.map(str) : []
  return { clarifyId, question: str(meta.question), choices }
}

function onToolCall(s: RunState, name: string, args: string): RunState {
  const call: ToolCall = { index: s.toolHistory.length, name, args, result: null, done: false }
  return { ...s, currentTool: call, toolHistory: [...s.toolHistory, call], toolCount: s.toolCount + 1 }
}

function onToolResult(s: RunState, name: string, result: string): RunState {
  const history = [...s.toolHistory]
  let i = history.length - 1
  while (i >= 0 && (history[i].done || (name && history[i].name !== name))) i--
  if (i < 0) {
    history.push({ index: history.length, name: name || '?', args: '', result, done: true })
    return { ...s, toolHistory: history, currentTool: null, toolCount: s.toolCount + 1 }
  }
  history[i] = { ...history[i], result, done: true }
  const current = s.currentTool && s.currentTool.index === i ? null : s.currentTool
  return { ...s, toolHistory: history, currentTool: current }
}

function onClarifyAnswered(s: RunState, meta: Record<string, unknown>): RunState {
  const clarifyId = str(meta.clarifyId)
  const question = s.pendingAsk?.clarifyId === clarifyId ? s.pendingAsk.question : str(meta.question)
  const done = { clarifyId, question, answer: str(meta.answer) }
  const pendingAsk = s.pendingAsk && s.pendingAsk.clarifyId !== clarifyId ? s.pendingAsk : null
  return { ...s, pendingAsk, clarifications: [...s.clarifications, done] }
}

/** Apply one node_stream item (kind/content/toolName/meta) — shared by events and stored logs. */
export function applyNodeStream(s: RunState, item: Record<string, unknown>): RunState {
  return annotateRun(s, applyItem(s, item), item)
}

function applyItem(s: RunState, item: Record<string, unknown>): RunState {
  const kind = str(item.kind)
  const content = str(item.content)
  const toolName = str(item.toolName)
  const meta = record(item.meta)
  switch (kind) {
    case 'thinking':
      return { ...s, thinking: s.thinking + content }
    case 'status':
      return { ...s, statusLine: stripHermesDecoration(content) }
    case 'tool_call':
      return onToolCall(s, toolName, content)
    case 'tool_result':
      return onToolResult(s, toolName, content)
    case 'todo_update': {
      const todos = parseTodos(item.content)
      return todos ? { ...s, todos } : s
    }
    case 'clarify_request': {
      const ask = parseAsk(Object.keys(meta).length ? meta : record(safeJson(content)))
      return ask ? { ...s, pendingAsk: ask } : s
    }
    case 'clarify_answered':
      return onClarifyAnswered(s, Object.keys(meta).length ? meta : record(safeJson(content)))
    case 'answer_delta':
      return { ...s, answer: s.answer + content }
    case 'context_compacted':
      return { ...s, summaries: [...s.summaries, content] }
    default:
      return s
  }
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    return null
  }
}

function finish(s: RunState, status: RunStatus, at: number | null): RunState {
  return { ...s, status, currentTool: null, pendingAsk: null, statusLine: '', endedAt: s.endedAt ?? at }
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
      return applyNodeStream(started, data)
    case 'context_compacted':
      return { ...started, summaries: [...started.summaries, str(data.summary)] }
    case 'workflow_complete': {
      const finalText = typeof data.finalText === 'string' ? data.finalText : started.answer
      const usage = data.usage ? record(data.usage) : started.usage
      return { ...finish(started, 'SUCCESS', at), answer: finalText, usage }
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
