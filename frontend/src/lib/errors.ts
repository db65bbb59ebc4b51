// Errors in words a person can act on. A failed run's raw provider text ("Error code: 429 -
// {...}") becomes one readable sentence (the raw text stays available as details); a failed
// request shows the API's message, with a hint to wait on 429 and a plain line when offline.
import { t } from '@/i18n'

export interface ReadableError {
  text: string
  detail: string | null
}

const RUN_PATTERNS: [RegExp, string][] = [
  [/\b429\b|rate.?limit|too many requests|quota/i, 'errors.rateLimited'],
  [/\b40[13]\b|unauthori[sz]ed|forbidden|invalid.{0,20}api.?key|authentication/i, 'errors.auth'],
  [/context.{0,20}(length|window)|maximum context|too many tokens/i, 'errors.context'],
  [/timed?.?out|timeout/i, 'errors.timeout'],
  [/connect(ion)?.{0,20}(error|refused|failed)|unreachable|name or service not known|getaddrinfo/i, 'errors.unreachable'],
]

/** The error of a FAILED reply: a readable sentence, plus the raw text when it says more. */
export function readableRunError(raw: string | null | undefined): ReadableError {
  const text = (raw ?? '').trim()
  if (!text) return { text: t('errors.generic'), detail: null }
  for (const [pattern, key] of RUN_PATTERNS) if (pattern.test(text)) return { text: t(key), detail: text }
  const status = /\b(5\d\d)\b/.exec(text)
  if (status) return { text: t('errors.server', { status: status[1] }), detail: text }
  return { text: sentence(text), detail: null }
}

/** The text as a sentence: trimmed, first letter upper-case ("chat session 9 not found"). */
export function sentence(text: string): string {
  const s = text.trim()
  return s.charAt(0).toLocaleUpperCase() + s.slice(1)
}

interface HttpLike {
  status?: unknown
  code?: unknown
  message?: unknown
}

/** A failed API request for a toast (ApiError's status and code; anything else by its text). */
export function readableRequestError(err: unknown): string {
  const e = (err && typeof err === 'object' ? err : {}) as HttpLike
  if (e.code === 'rate_limited') return t('errors.tooManyRequests')
  if (e.status === 0 || e.code === 'network') return t('errors.network')
  const message = err instanceof Error ? err.message : typeof e.message === 'string' ? e.message : String(err)
  if (e.status === 404 && /session .*not found/i.test(message)) return t('errors.sessionNotFound')
  return sentence(message)
}
