// Small display helpers.
import { readableRequestError } from './errors'

/** A one-line preview of tool arguments: JSON shortened, whitespace collapsed. */
export function summarize(text: string | null | undefined, max = 120): string {
  const s = (text ?? '').replace(/\s+/g, ' ').trim()
  return s.length > max ? s.slice(0, max - 1) + '…' : s
}

export function formatTime(iso: string | null | undefined, locale?: string): string {
  if (!iso) return ''
  const d = new Date(iso)
  if (Number.isNaN(d.getTime())) return ''
  const today = new Date()
  const sameDay = d.toDateString() === today.toDateString()
  return sameDay
    ? d.toLocaleTimeString(locale, { hour: '2-digit', minute: '2-digit' })
    : d.toLocaleDateString(locale, { month: 'short', day: 'numeric' })
}

/** A failed request or a thrown error as one readable sentence (see errors.ts). */
export function errorText(err: unknown): string {
  return readableRequestError(err)
}
