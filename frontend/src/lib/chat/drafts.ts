// What a person was typing into a chat, kept per chat in this browser until it is sent: a
// reload, a closed tab or a visit to another chat loses nothing they typed. With accounts a
// draft is its writer's: another person signed in on the same browser never sees it, and
// signing out drops them all.
import { account } from '@/lib/accounts/account'

export type DraftKey = number | 'new'

const PREFIX = 'agentchat.draft.'
const KEEP = 50 // the most recent drafts; older ones are dropped

interface Stored {
  text: string
  at: number
  /** The signed-in person's id; null without accounts. */
  who: number | null
}

const writer = (): number | null => account.user?.id ?? null

function store(): Storage | null {
  try {
    return localStorage
  } catch {
    return null
  }
}

function read(raw: string | null): Stored | null {
  if (!raw) return null
  try {
    const value = JSON.parse(raw) as Partial<Stored>
    if (typeof value.text !== 'string') return null
    return { text: value.text, at: Number(value.at) || 0, who: typeof value.who === 'number' ? value.who : null }
  } catch {
    return null
  }
}

export function loadDraft(key: DraftKey): string {
  const draft = read(store()?.getItem(PREFIX + key) ?? null)
  return draft && draft.who === writer() ? draft.text : ''
}

export function dropDraft(key: DraftKey): void {
  try {
    store()?.removeItem(PREFIX + key)
  } catch {
    /* storage unavailable */
  }
}

export function saveDraft(key: DraftKey, text: string, now: number = Date.now()): void {
  const storage = store()
  if (!storage) return
  if (!text.trim()) return dropDraft(key)
  try {
    storage.setItem(PREFIX + key, JSON.stringify({ text, at: now, who: writer() } satisfies Stored))
    prune(storage)
  } catch {
    /* full or unavailable: the box still holds the text */
  }
}

/** What was typed into a chat that is gone (deleted elsewhere) waits in `to` instead, after
 * what `to` already holds. */
export function moveDraft(from: DraftKey, to: DraftKey): void {
  const moving = loadDraft(from).trim()
  dropDraft(from)
  if (!moving) return
  const kept = loadDraft(to).trim()
  if (kept.endsWith(moving)) return
  saveDraft(to, kept ? `${kept}\n\n${moving}` : moving)
}

/** Every draft kept in this browser dropped (signing out). */
export function dropAllDrafts(): void {
  const storage = store()
  if (!storage) return
  const names: string[] = []
  for (let i = 0; i < storage.length; i++) {
    const name = storage.key(i)
    if (name?.startsWith(PREFIX)) names.push(name)
  }
  for (const name of names) storage.removeItem(name)
}

function prune(storage: Storage): void {
  const drafts: [string, number][] = []
  for (let i = 0; i < storage.length; i++) {
    const name = storage.key(i)
    if (name?.startsWith(PREFIX)) drafts.push([name, read(storage.getItem(name))?.at ?? 0])
  }
  if (drafts.length <= KEEP) return
  drafts.sort((a, b) => b[1] - a[1])
  for (const [name] of drafts.slice(KEEP)) storage.removeItem(name)
}
