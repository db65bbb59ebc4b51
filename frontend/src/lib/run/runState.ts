// The state of one run (one assistant message) and the reducer that applies run events to it.
// Live streams, the /state snapshot and stored logs all go through applyEvent, so a replayed
// message looks exactly like a live one.
import type {
  ClarifyAnsweredMeta,
  ClarifyRequestMeta,
  ContextCompacted,
  McpOrigin,
  NodeEvent,
  PendingClarify,
  RunLog,
  StepMeta,
  ToolCallMeta,
  ToolMedia,
  ToolResultMeta,
  Usage,
  WorkflowComplete,
  WorkflowError,
} from '@/api/schema'
import type { PendingAsk } from './approval'
import { stripHermesDecoration } from './decoration'
import { annotateRun, type RunStep } from './steps'

export type { PendingClarify }

export type RunStatus = 'RUNNING' | 'SUCCESS' | 'FAILED' | 'STOPPED' | 'INTERRUPTED'

interface StreamEvent<E extends string, D> {
  /** The SSE id (null for events the page makes up itself). */
  id: number | null
  event: E
  data: D
}

/**
 * One event of a run stream as the page receives it: the SSE id, name and parsed data
 * (a RunStreamEvent of the OpenAPI document, told apart by the SSE name). The multiplexed
 * stream adds `run_unknown` and `stream_interrupted`, whose data is just `{runId}`.
 */
export type RunEvent =
  | StreamEvent<'node_stream', NodeEvent>
  | StreamEvent<'context_compacted', ContextCompacted>
  | StreamEvent<'workflow_complete', WorkflowComplete>
  | StreamEvent<'workflow_error', WorkflowError>
  | StreamEvent<'run_unknown' | 'stream_interrupted', { runId: string; [key: string]: unknown }>

/** A stored log line (its meta is not tied to its kind by the schema; old logs may lack fields). */
export type NodeLog = Pick<RunLog, 'kind' | 'content'> & Partial<Pick<RunLog, 'toolName' | 'meta'>>

/** A node_stream event's payload, or a stored log line (same fields). */
export type NodeItem = NodeEvent | NodeLog

/** The meta of a node item of a known kind; stored logs of an older shape may lack any field. */
type MetaOf<T> = Partial<T> & Record<string, unknown>

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
  /** Text the model wrote just before this call (an `interim` event). */
  said?: string
  /** The MCP server and its own name of the tool behind an `mcp__<server>__<tool>` call. */
  mcp?: McpOrigin
  /** Images, sounds and files the tool returned (MCP tools). */
  media?: ToolMedia[]
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
  /** The question the run waits on (with `approval` when it asks to allow a command). */
  pendingClarify: PendingAsk | null
  /** A question the page answered and hid before the stream said so: its record needs it. */
  answeredAsk?: PendingAsk | null
  clarifications: ClarifyAnswered[]
  answer: string
  /** Interim text waiting for the tool call it precedes. */
  said: string
  /** The model call the agent is on (step events) and the turn's limit; 0 before the first. */
  iteration: number
  maxIterations: number
  /** Messages a person sent the running agent (steered events), in order. */
  steers: string[]
  error: string | null
  summaries: string[]
  usage: Usage | null
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
    said: '',
    iteration: 0,
    maxIterations: 0,
    steers: [],
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
  return status === 'SUCCESS' || status === 'FAILED' || status === 'STOPPED' || status === 'INTERRUPTED'
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

function parseClarify(meta: MetaOf<ClarifyRequestMeta>): PendingAsk | null {
  const clarifyId = meta.clarifyId ?? ''
  if (!clarifyId) return null
  const choices = Array.isArray(meta.choices) ? [...meta.choices] : []
  const ask: PendingAsk = { clarifyId, question: meta.question ?? '', choices }
  return meta.approval ? { ...ask, approval: meta.approval } : ask
}

function onToolCall(s: RunState, name: string, args: string, meta: MetaOf<ToolCallMeta>): RunState {
  const input = meta.args ?? null
  const call: ToolCall = {
    index: s.toolHistory.length,
    toolCallId: meta.toolCallId || null,
    name,
    args,
    input,
    result: null,
    durationMs: null,
    done: false,
  }
  if (s.said) call.said = s.said
  if (meta.mcp) call.mcp = meta.mcp
  return { ...s, said: '', currentTool: call, toolHistory: [...s.toolHistory, call], toolCount: s.toolCount + 1 }
}

/** Interim text streamed as answer text: it moves out of the answer to the calls it precedes. */
function onInterim(s: RunState, text: string): RunState {
  return { ...s, answer: '', said: s.said ? `${s.said}\n\n${text}` : text }
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

function onToolResult(s: RunState, name: string, result: string, meta: MetaOf<ToolResultMeta>): RunState {
  const toolCallId = meta.toolCallId ?? ''
  const durationMs = meta.durationMs ?? null
  const extra: Partial<ToolCall> = {}
  if (meta.mcp) extra.mcp = meta.mcp
  if (meta.media?.length) extra.media = meta.media
  const history = [...s.toolHistory]
  const i = callOf(history, toolCallId, name)
  if (i < 0) {
    const orphan: ToolCall = {
      index: history.length, toolCallId: toolCallId || null, name: name || '?', args: '', input: null,
      result, durationMs, done: true, ...extra,
    }
    return { ...s, toolHistory: [...history, orphan], toolCount: s.toolCount + 1 }
  }
  history[i] = { ...history[i], result, durationMs, done: true, ...extra }
  return { ...s, toolHistory: history, currentTool: lastOpen(history) }
}

function onClarifyAnswered(s: RunState, meta: MetaOf<ClarifyAnsweredMeta>): RunState {
  const clarifyId = meta.clarifyId ?? ''
  const ask = [s.pendingClarify, s.answeredAsk].find((a) => a?.clarifyId === clarifyId)
  const done = { clarifyId, question: ask ? ask.question : str(meta.question), answer: meta.answer ?? '' }
  const pendingClarify = s.pendingClarify && s.pendingClarify.clarifyId !== clarifyId ? s.pendingClarify : null
  return { ...s, pendingClarify, answeredAsk: null, clarifications: [...s.clarifications, done] }
}

/** The page answered `clarifyId`: hide the question now, keep it for the answer's record. */
export function hideAnswered(s: RunState, clarifyId: string): RunState {
  if (s.pendingClarify?.clarifyId !== clarifyId) return s
  return { ...s, pendingClarify: null, answeredAsk: s.pendingClarify }
}

/** Apply one node_stream item (kind/content/toolName/meta) — shared by events and stored logs. */
export function applyNodeStream(s: RunState, item: NodeItem): RunState {
  const thought = item.kind === 'thinking' ? (item.content ?? '') : ''
  return annotateRun(s, applyItem(s, item), thought)
}

/** An item's meta as its kind's meta schema (events carry it; a stored log may lack it or fields of it). */
function metaOf<T>(item: NodeItem): MetaOf<T> {
  return (item.meta ?? {}) as MetaOf<T>
}

function applyItem(s: RunState, item: NodeItem): RunState {
  const content = item.content ?? ''
  switch (item.kind) {
    case 'thinking':
      return { ...s, thinking: s.thinking + content }
    case 'status':
      return { ...s, statusLine: stripHermesDecoration(content) }
    case 'tool_call':
      return onToolCall(s, item.toolName ?? '', content, metaOf<ToolCallMeta>(item))
    case 'tool_result':
      return onToolResult(s, item.toolName ?? '', content, metaOf<ToolResultMeta>(item))
    case 'interim':
      return onInterim(s, content)
    case 'step': {
      const meta = metaOf<StepMeta>(item)
      return { ...s, iteration: meta.iteration || s.iteration, maxIterations: meta.maxIterations || s.maxIterations }
    }
    case 'steered':
      return { ...s, steers: [...s.steers, content] }
    case 'todo_update': {
      const todos = parseTodos(item.content ?? null)
      return todos ? { ...s, todos } : s
    }
    case 'clarify_request': {
      const clarify = parseClarify(metaOf<ClarifyRequestMeta>(item))
      return clarify ? { ...s, pendingClarify: clarify } : s
    }
    case 'clarify_answered':
      return onClarifyAnswered(s, metaOf<ClarifyAnsweredMeta>(item))
    case 'answer_delta':
      return { ...s, answer: s.answer + content }
    default:
      return s
  }
}

function finish(s: RunState, status: RunStatus, at: number | null): RunState {
  return { ...s, status, currentTool: null, pendingClarify: null, statusLine: '', endedAt: s.endedAt ?? at }
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
  switch (ev.event) {
    case 'node_stream':
      return applyNodeStream(started, ev.data)
    case 'context_compacted':
      return { ...started, summaries: [...started.summaries, ev.data.summary ?? ''] }
    case 'workflow_complete': {
      const data = ev.data
      return { ...finish(started, 'SUCCESS', at), answer: data.finalText ?? started.answer, usage: data.usage ?? started.usage }
    }
    case 'workflow_error': {
      const status: RunStatus = ev.data.stopped ? 'STOPPED' : ev.data.interrupted ? 'INTERRUPTED' : 'FAILED'
      return { ...finish(started, status, at), error: ev.data.message || null }
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
