// Tool arguments and results for reading: JSON indented, anything else as it came.

/** A value (tool arguments) as indented JSON; a string stays as it is. */
export function prettyValue(value: unknown): string {
  if (value === null || value === undefined) return ''
  if (typeof value === 'string') return prettyText(value)
  try {
    return JSON.stringify(value, null, 2)
  } catch {
    return String(value)
  }
}

/** A text (a tool result) that holds JSON, indented; other text unchanged. */
export function prettyText(text: string): string {
  const trimmed = text.trim()
  if (!trimmed.startsWith('{') && !trimmed.startsWith('[')) return text
  try {
    return JSON.stringify(JSON.parse(trimmed), null, 2)
  } catch {
    return text
  }
}

/** "1.2 s", "340 ms", or '' when unknown. */
export function formatDuration(ms: number | null | undefined): string {
  if (ms === null || ms === undefined || !Number.isFinite(ms)) return ''
  return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(1)} s`
}
