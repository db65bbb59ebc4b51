// Errors in words a person can act on. A failed run's raw provider text ("Error code: 429 -
// {...}") becomes one readable sentence (the raw text stays available as details); a failed
// request shows the API's message, with a hint to wait on 429 and a plain line when offline.
import { t } from '@/i18n'

export interface ReadableError {
  text: string
  detail: string | null
}

const RUN_PATTERNS: [RegExp, string][] = [
  // the bridge's own sentences (bridge/non_answers.py, bridge/agent_guard.py) come first
  [/returned an empty answer/i, 'errors.emptyAnswer'],
  [/only reasoned and wrote no answer/i, 'errors.reasoningOnly'],
  [/answer broke off/i, 'errors.brokeOff'],
  [/stopped after repeated errors/i, 'errors.repeatedErrors'],
  [/did not finish its answer/i, 'errors.unfinished'],
  [/sent data that is not valid JSON/i, 'errors.garbled'],
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
  const wait = /asks to retry after (\d+) s/.exec(text)
  if (wait) return { text: t('errors.rateLimitedFor', { seconds: wait[1] }), detail: text }
  for (const [pattern, key] of RUN_PATTERNS) if (pattern.test(text)) return { text: t(key), detail: text }
  const status = /\b(5\d\d)\b/.exec(text)
  if (status) return { text: t('errors.server', { status: status[1] }), detail: text }
  return { text: sentence(text), detail: null }
}

/** The hint under an INTERRUPTED reply: the agent service was replaced under it (it stopped
 * answering: runs/store.py BRIDGE_RESTARTED_ERROR), or the server restarted. */
export function interruptedHint(raw: string | null | undefined): string {
  const bridge = /agent service stopped answering and was restarted/i.test(raw ?? '')
  return t(bridge ? 'chat.interruptedBridgeHint' : 'chat.interruptedHint')
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

/** Field names in the API's validation messages ("title: String should have at most 255 …"). */
const FIELDS: Record<string, string> = { message: 'errors.fields.message', content: 'errors.fields.message', title: 'errors.fields.title' }
const MEMORY_FILES: Record<string, string> = { 'MEMORY.md': 'memory.memoryFile', 'USER.md': 'memory.userFile' }

function sizeText(bytes: number): string {
  return bytes >= 1024 * 1024 ? `${Math.round(bytes / (1024 * 1024))} MB` : `${Math.round(bytes / 1024)} KB`
}

/** The accounts' refusals (docs/contracts.md "Accounts"), each worded as errors.code.<code>;
 * also the codes of /signin?error=CODE after single sign-on. */
export const ACCOUNT_CODES = [
  'bad_credentials', 'account_disabled', 'account_pending', 'signin_throttled', 'credentials_missing',
  'signup_closed', 'accounts_off', 'invitation_invalid', 'invitation_not_found', 'password_wrong',
  'password_invalid', 'own_account', 'last_admin', 'user_not_found', 'username_invalid', 'username_taken',
  'username_lookalike', 'admin_only', 'too_many_runs', 'oidc_failed', 'oidc_state_invalid', 'oidc_off',
  'session_not_found', 'role_invalid',
] as const

/** An accounts refusal code in the page's words (null for a code this page does not know). */
export function accountCodeText(code: unknown): string | null {
  return typeof code === 'string' && (ACCOUNT_CODES as readonly string[]).includes(code) ? t(`errors.code.${code}`) : null
}

/** The API's refusals it knows, in the page's language; null for the others. */
function knownRefusal(e: HttpLike, message: string): string | null {
  const code = typeof e.code === 'string' ? e.code : ''
  const account = accountCodeText(code)
  if (account) return account
  const cap = /^(\d+) answers are already running on this server/.exec(message)
  if (cap) return t('errors.serverBusy', { n: cap[1] })
  if (code === 'too_many_requests' || code === 'rate_limited' || e.status === 429) return t('errors.tooManyRequests')
  if (e.status === 0 || code === 'network') return t('errors.network')
  if (code === 'payload_too_large' || e.status === 413) {
    const bytes = /larger than (\d+) bytes/.exec(message)
    return t('errors.tooLarge', { size: bytes ? sizeText(Number(bytes[1])) : '?' })
  }
  const tooLong = /^(\w+): String should have at most (\d+) characters?/.exec(message)
  if (tooLong) {
    const field = FIELDS[tooLong[1]] ? t(FIELDS[tooLong[1]]) : tooLong[1]
    return t('errors.tooLong', { field, max: Number(tooLong[2]).toLocaleString() })
  }
  const memory = /(MEMORY\.md|USER\.md) would hold (\d+) characters; the limit is (\d+)/.exec(message)
  if (memory) return t('errors.memoryTooLong', { file: t(MEMORY_FILES[memory[1]]), chars: memory[2], limit: memory[3] })
  if (e.status === 404 && /session .*not found/i.test(message)) return t('errors.sessionNotFound')
  if (/chat session \d+ (has an active run|already has a running answer)|message \d+ is still running/.test(message) || code === 'run_active')
    return t('errors.sessionBusy')
  if (code === 'stale_clarify' || /not waiting for an answer|no longer waits for/.test(message)) return t('errors.clarifyStale')
  if (code === 'run_finished') return t('errors.runFinished')
  if (/is archived; restore it/.test(message)) return t('errors.sessionArchived')
  if (/already has an answer/.test(message)) return t('errors.alreadyAnswered')
  if (code === 'bridge_unavailable') return t('service.agent')
  if (code === 'database_unavailable') return t('service.database')
  if (code === 'bus_unavailable') return t('service.bus')
  return null
}

/** A failed API request for a toast (ApiError's status and code; anything else by its text). */
export function readableRequestError(err: unknown): string {
  const e = (err && typeof err === 'object' ? err : {}) as HttpLike
  const message = err instanceof Error ? err.message : typeof e.message === 'string' ? e.message : String(err)
  return knownRefusal(e, message) ?? sentence(withoutIds(message))
}

/** The API's other sentences without the internal ids they name ("chat session 107"). */
function withoutIds(message: string): string {
  return message
    .replace(/\bchat session \d+\b/gi, 'this chat')
    .replace(/\bmessage \d+\b/gi, 'this message')
    .replace(/\brun [0-9a-f]{16,}\b/gi, 'this answer')
}

interface FieldLike {
  field: string
  code: string
  message: string
  limit?: number | null
}

/** A refused request's fields, each in the page's words (the API's own for a code this page
 * does not know): { baseUrl: 'Must be an http:// or https:// URL with a host' }. */
export function fieldErrors(err: unknown): Record<string, string> {
  const fields = (err && typeof err === 'object' && 'fields' in err ? (err as { fields: unknown }).fields : []) as FieldLike[]
  const out: Record<string, string> = {}
  for (const f of Array.isArray(fields) ? fields : []) {
    if (out[f.field]) continue
    const key = `errors.field.${f.code}`
    const words = t(key, { limit: typeof f.limit === 'number' ? f.limit.toLocaleString() : '' })
    out[f.field] = words === key ? sentence(f.message) : words
  }
  return out
}
