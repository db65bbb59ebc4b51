// What the thinking panel needs beyond the reducer's core: the run as steps (one model turn's
// thinking, then the tools it called) and each tool call's real arguments (`meta.args`) and
// duration (`meta.durationMs`). Applied after the reducer's own change, so it holds whatever
// way the reducer pairs results with calls.
import type { RunState, ToolCall } from './runState'

export interface RunStep {
  thinking: string
  /** Indices into RunState.toolHistory, in call order. */
  tools: number[]
}

function record(value: unknown): Record<string, unknown> {
  return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {}
}

function appendThinking(steps: RunStep[], text: string): RunStep[] {
  const last = steps[steps.length - 1]
  // Thinking after a tool call starts the next step (the model's next turn).
  if (!last || last.tools.length) return [...steps, { thinking: text, tools: [] }]
  return [...steps.slice(0, -1), { ...last, thinking: last.thinking + text }]
}

function appendTools(steps: RunStep[], indices: number[]): RunStep[] {
  const last = steps[steps.length - 1] ?? { thinking: '', tools: [] }
  return [...steps.slice(0, -1), { ...last, tools: [...last.tools, ...indices] }]
}

function withCall(s: RunState, index: number, patch: Partial<ToolCall>): RunState {
  const history = s.toolHistory.map((c, i) => (i === index ? { ...c, ...patch } : c))
  const current = s.currentTool && s.currentTool.index === index ? { ...s.currentTool, ...patch } : s.currentTool
  return { ...s, toolHistory: history, currentTool: current }
}

/** Fold one node_stream item into the steps and tool details of `next` (the reducer's result). */
export function annotateRun(prev: RunState, next: RunState, item: Record<string, unknown>): RunState {
  const kind = item.kind
  const meta = record(item.meta)
  let s = next
  if (kind === 'thinking' && next.thinking !== prev.thinking) {
    s = { ...s, steps: appendThinking(prev.steps, next.thinking.slice(prev.thinking.length)) }
  }
  const added = next.toolHistory.length - prev.toolHistory.length
  if (added > 0) {
    const indices = Array.from({ length: added }, (_, i) => prev.toolHistory.length + i)
    s = { ...s, steps: appendTools(s.steps, indices) }
  }
  if (kind === 'tool_call' && added > 0 && 'args' in meta) s = withCall(s, next.toolHistory.length - 1, { input: meta.args })
  if (kind === 'tool_result' && typeof meta.durationMs === 'number') {
    const finished = next.toolHistory.findIndex((c, i) => c.done && (i >= prev.toolHistory.length || !prev.toolHistory[i].done))
    if (finished >= 0) s = withCall(s, finished, { durationMs: meta.durationMs })
  }
  return s
}
