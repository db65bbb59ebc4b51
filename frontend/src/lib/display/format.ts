// Small display helpers.
import { readableRequestError } from './errors'

/** A one-line preview of tool arguments: JSON shortened, whitespace collapsed. */
export function summarize(text: string | null | undefined, max = 120): string {
  const s = (text ?? '').replace(/\s+/g, ' ').trim()
  return s.length > max ? s.slice(0, max - 1) + '…' : s
}

// Built once per locale and kind: toLocaleTimeString with options builds a new formatter per
// call, and the chat list formats one time per chat each time it is drawn.
const formatters = new Map<string, Intl.DateTimeFormat>()
const KINDS = {
  time: { hour: '2-digit', minute: '2-digit' },
  day: { month: 'short', day: 'numeric' },
} as const satisfies Record<string, Intl.DateTimeFormatOptions>

function formatter(locale: string | undefined, kind: keyof typeof KINDS): Intl.DateTimeFormat {
  const key = `${locale ?? ''}|${kind}`
  let made = formatters.get(key)
  if (!made) {
    made = new Intl.DateTimeFormat(locale, KINDS[kind])
    formatters.set(key, made)
  }
  return made
}

export function formatTime(iso: string | null | undefined, locale?: string): string {
  if (!iso) return ''
  const d = new Date(iso)
  if (Number.isNaN(d.getTime())) return ''
  const sameDay = d.toDateString() === new Date().toDateString()
  return formatter(locale, sameDay ? 'time' : 'day').format(d)
}

/** A failed request or a thrown error as one readable sentence (see errors.ts). */
export function errorText(err: unknown): string {
  return readableRequestError(err)
}
