// Tool arguments and results for display: parsed when they are JSON, previewed on one line.
// Terminal colour codes (a test run's red FAILED) are taken out: a page shows them as boxes.
import stripAnsi from 'strip-ansi'

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
  return { json: false, text: stripAnsi(text) }
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
  else if (Array.isArray(parsed.value)) line = parsed.value.slice(0, max).map(short).join(', ')
  else line = Object.entries(parsed.value as Record<string, unknown>).slice(0, max).map(([k, v]) => `${k}: ${short(v)}`).join(', ')
  // a few times what is shown is plenty to fill the line (a result can be megabytes)
  line = line.slice(0, max * 4).replace(/\s+/g, ' ').trim()
  return line.length > max ? line.slice(0, max - 1) + '…' : line
}

export interface Clamped {
  shown: string
  /** Lines and characters of the whole text. */
  total: number
  chars: number
  clamped: boolean
  /** Cut at `maxChars` (a few very long lines) rather than at `maxLines`. */
  byChars: boolean
}

/** The first `maxLines` lines of a text, at most `maxChars` characters of them, and its size. */
export function clampLines(text: string, maxLines: number, maxChars = Infinity): Clamped {
  let shown = text
  let total = 1
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) {
    if (total === maxLines) shown = text.slice(0, i)
    total++
  }
  const byChars = shown.length > maxChars
  if (byChars) shown = shown.slice(0, maxChars)
  return { shown, total, chars: text.length, clamped: shown.length < text.length, byChars }
}
