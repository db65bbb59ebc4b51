// Message-tree helpers for the view: version switchers, the leaf to extend, dividers.
import type { Message } from '@/api/schema'

export interface VersionInfo {
  index: number // 1-based, as shown: "2/3"
  count: number
  hasPrev: boolean
  hasNext: boolean
}

/** The switcher data of a message, or null when it has no siblings. */
export function versionInfo(message: Pick<Message, 'siblingCount' | 'siblingIndex'>): VersionInfo | null {
  const count = message.siblingCount
  if (count <= 1) return null
  const zero = message.siblingIndex // 0-based in the API
  return { index: zero + 1, count, hasPrev: zero > 0, hasNext: zero < count - 1 }
}

/** The sibling to activate for a step of -1 / +1, given the siblings ordered by branchOrder. */
export function siblingAt<T extends { messageId: number; isActive: boolean }>(
  siblings: T[],
  currentId: number,
  step: number,
): T | null {
  let at = siblings.findIndex((s) => s.messageId === currentId)
  if (at === -1) at = siblings.findIndex((s) => s.isActive)
  const target = siblings[at + step]
  return at === -1 || !target ? null : target
}

/** The last message of the active branch: the parent of the next user message. */
export function activeLeaf(messages: Message[]): Message | null {
  return messages.length ? messages[messages.length - 1] : null
}

/** The running assistant message of the branch, if any. */
export function runningMessage(messages: Message[]): Message | null {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]
    if (m.role === 'ASSISTANT' && m.status === 'RUNNING' && m.runId) return m
  }
  return null
}

export type MessageView = 'user' | 'assistant' | 'summary' | 'reset' | 'system'

export function viewOf(message: Pick<Message, 'role' | 'status'>): MessageView {
  if (message.role === 'USER') return 'user'
  if (message.role === 'ASSISTANT') return 'assistant'
  if (message.status === 'SUMMARY') return 'summary'
  if (message.status === 'RESET') return 'reset'
  return 'system'
}

/** Merge an older page in front of the loaded messages, without duplicates. */
export function prependOlder(older: Message[], loaded: Message[]): Message[] {
  const known = new Set(loaded.map((m) => m.id))
  return [...older.filter((m) => !known.has(m.id)), ...loaded]
}

/** The SUMMARY messages, oldest first: the compression history of the memory drawer. */
export function summaries(messages: Message[]): Message[] {
  return messages.filter((m) => m.role === 'SYSTEM' && m.status === 'SUMMARY')
}

/**
 * Whether the end of the branch the page shows is the server's (`end`: its last messages,
 * oldest first): the same messages under the same parents. A turn another tab added, or one
 * slipped in under a question just sent, makes them differ.
 */
export function sameBranchEnd(shown: readonly Pick<Message, 'id' | 'parentId'>[], end: readonly Pick<Message, 'id' | 'parentId'>[]): boolean {
  const tail = shown.slice(-end.length)
  if (tail.length !== end.length) return shown.length === 0 && end.length === 0
  return end.every((m, i) => m.id === tail[i].id && m.parentId === tail[i].parentId)
}
