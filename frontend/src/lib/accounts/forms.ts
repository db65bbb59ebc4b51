// The account forms' checks before sending (the server checks again), and the Admin page's
// figures: dates, invitation links, usage per person.
import { i18n } from '@/i18n'
import type { UsageRow } from '@/api/schema'

export const MIN_PASSWORD = 8
export const MAX_PASSWORD = 1024

/** What is wrong with a new account's name and password, as an i18n key (null: nothing). */
export function passwordProblem(username: string | null, password: string, again: string): string | null {
  if (username !== null && !username.trim()) return 'errors.code.credentials_missing'
  if (password.length < MIN_PASSWORD || password.length > MAX_PASSWORD) return 'errors.code.password_invalid'
  if (password !== again) return 'account.passwordsDiffer'
  return null
}

/** A date and time in the page's language ("3 Dec 2026, 14:05"); '' for none. */
export function formatDateTime(iso: string | null | undefined, locale: string = String(i18n.global.locale.value)): string {
  if (!iso) return ''
  const d = new Date(iso)
  if (Number.isNaN(d.getTime())) return ''
  return d.toLocaleString(locale === 'zh' ? 'zh-CN' : 'en-GB', { dateStyle: 'medium', timeStyle: 'short' })
}

/** The whole address of an invitation (the API gives its path on this server). */
export function invitationLink(path: string, origin: string = window.location.origin): string {
  return new URL(path, origin).toString()
}

export interface PersonUsage {
  userId: number
  username: string
  turns: number
  promptTokens: number
  completionTokens: number
  totalTokens: number
}

/** The usage table summed per person, the most tokens first. */
export function usagePerPerson(rows: readonly UsageRow[]): PersonUsage[] {
  const people = new Map<number, PersonUsage>()
  for (const row of rows) {
    const sum = people.get(row.userId) ?? { userId: row.userId, username: row.username, turns: 0, promptTokens: 0, completionTokens: 0, totalTokens: 0 }
    sum.turns += row.turns
    sum.promptTokens += row.promptTokens
    sum.completionTokens += row.completionTokens
    sum.totalTokens += row.totalTokens
    people.set(row.userId, sum)
  }
  return [...people.values()].sort((a, b) => b.totalTokens - a.totalTokens || a.username.localeCompare(b.username))
}
