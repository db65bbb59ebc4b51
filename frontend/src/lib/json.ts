// Tool arguments and results for display: parsed when they are JSON, previewed on one line.

export type Parsed = { json: true; value: unknown } | { json: false; text: string }

/** A value as JSON when it is an object or array (or a string holding one); else plain text. */
export function parseStructured(value: unknown): Parsed {
  if (value !== null && typeof value === 'object') return { json: true, value }
  const text = value === null || value === undefined ? '' : String(value)
  const trimmed = text.trim()
  if (/^[[{]/.test(trimmed)) {
    try {
      const parsed: unknown = JSON.parse(trimmed)
      if (parsed !== null && typeof parsed === 'object') return { json: true, value: parsed }
    } catch {
      /* not JSON: shown as text */
    }
  }
  return { json: false, text }
}

function short(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value)
  if (Array.isArray(value)) return `[${value.length}]`
  if (value !== null && typeof value === 'object') return '{…}'
  return String(value)
}

/** `query: "cats", limit: 5` — the arguments of a call on one line, cut at `max` characters. */
export function previewArgs(value: unknown, max = 80): string {
  const parsed = parseStructured(value)
  let line: string
  if (!parsed.json) line = parsed.text
  else if (Array.isArray(parsed.value)) line = parsed.value.map(short).join(', ')
  else line = Object.entries(parsed.value as Record<string, unknown>).map(([k, v]) => `${k}: ${short(v)}`).join(', ')
  line = line.replace(/\s+/g, ' ').trim()
  return line.length > max ? line.slice(0, max - 1) + '…' : line
}

/** The first `maxLines` lines of a text, and how many lines it has in all. */
export function clampLines(text: string, maxLines: number): { shown: string; total: number; clamped: boolean } {
  const lines = text.split('\n')
  if (lines.length <= maxLines) return { shown: text, total: lines.length, clamped: false }
  return { shown: lines.slice(0, maxLines).join('\n'), total: lines.length, clamped: true }
}
