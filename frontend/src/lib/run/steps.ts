// The run as steps for the thinking panel: one model turn's thinking, then the tools it called.
// Applied after the reducer's own change (it only compares the state before and after).
import type { RunState } from './runState'

export interface RunStep {
  thinking: string
  /** Indices into RunState.toolHistory, in call order. */
  tools: number[]
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

/**
 * Fold the change from `prev` to `next` (the reducer's result for one item) into the steps.
 * `thought` is the thinking the item added: taken from the item, never sliced out of the
 * whole text again — such a slice keeps its whole text alive, and a long thinking stream kept
 * every earlier copy of it (a megabyte in small pieces ran the tab out of memory).
 */
export function annotateRun(prev: RunState, next: RunState, thought = ''): RunState {
  let steps = prev.steps
  if (thought) steps = appendThinking(steps, thought)
  const added = next.toolHistory.length - prev.toolHistory.length
  if (added > 0) steps = appendTools(steps, Array.from({ length: added }, (_, i) => prev.toolHistory.length + i))
  return steps === next.steps ? next : { ...next, steps }
}
