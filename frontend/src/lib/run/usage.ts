// Token usage as the bridge reports it per answer (docs/contracts.md, run_end.usage): pure
// helpers for the answer's usage line and the chat's context meter.

export interface UsageLine {
  prompt: number
  completion: number
  reasoning: number
  summary: number
  calls: number
}

export interface ContextMeter {
  tokens: number
  length: number
  ratio: number
  label: string
  level: 'ok' | 'warn' | 'near'
}

// hermes compacts at 75 % of windows under 512K (its threshold is raised to at least 0.75);
// the meter warns from 60 %.
const WARN_AT = 0.6
const NEAR_AT = 0.75

function record(value: unknown): Record<string, unknown> | null {
  return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : null
}

function count(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? Math.floor(value) : 0
}

/** "950", "1.7k", "131.1k", "2.1M": hermes' own dashboard style. */
export function compactTokens(n: number): string {
  if (n < 1000) return String(n)
  if (n < 1_000_000) return `${(n / 1000).toFixed(1)}k`
  return `${(n / 1_000_000).toFixed(1)}M`
}

/** The usage line of one answer, or null when the answer reported none. */
export function usageLine(value: unknown): UsageLine | null {
  const usage = record(value)
  if (!usage) return null
  const line = {
    prompt: count(usage.promptTokens),
    completion: count(usage.completionTokens),
    reasoning: count(usage.reasoningTokens),
    summary: count(usage.summaryPromptTokens) + count(usage.summaryCompletionTokens),
    calls: count(usage.apiCalls),
  }
  return line.prompt || line.completion || line.calls ? line : null
}

/** Tokens in the window after a turn against the model's context length. */
export function contextMeter(value: unknown): ContextMeter | null {
  const usage = record(value)
  const length = count(usage?.contextLength)
  if (!length) return null
  const tokens = count(usage?.contextTokens)
  const ratio = Math.min(tokens / length, 1)
  const level = ratio >= NEAR_AT ? 'near' : ratio >= WARN_AT ? 'warn' : 'ok'
  return { tokens, length, ratio, label: `${compactTokens(tokens)}/${compactTokens(length)}`, level }
}

/** The meter after the latest answer that reported a context window (messages oldest first). */
export function latestMeter(messages: readonly { role: string; usage?: unknown }[]): ContextMeter | null {
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i]
    if (message.role !== 'ASSISTANT') continue
    const meter = contextMeter(message.usage)
    if (meter) return meter
  }
  return null
}

/** Session statistics as label/value rows: `usage` spread out ("usage.promptTokens"), `context`
 * as "tokens/length". */
export function statRows(stats: object): [string, unknown][] {
  const rows: [string, unknown][] = []
  for (const [key, value] of Object.entries(stats)) {
    if (key === 'context') {
      const window = record(value)
      const meter = window ? contextMeter({ contextTokens: window.tokens, contextLength: window.length }) : null
      rows.push([key, meter ? meter.label : null])
    } else if (value && typeof value === 'object' && !Array.isArray(value)) {
      for (const [sub, inner] of Object.entries(value)) rows.push([`${key}.${sub}`, inner])
    } else rows.push([key, value])
  }
  return rows
}
