// A localStorage lock so that two tabs do not send into the same session at once (spec §2.2).
// A lock is held while this tab's run in the session is live and renewed by a heartbeat; a
// crashed tab's lock expires after ttlMs.

export interface TabLockOptions {
  storage?: Storage
  ttlMs?: number
  now?: () => number
  tabId?: string
}

interface LockRecord {
  tab: string
  until: number
}

/** The storage key of a session's lock is this and its id (other tabs see it change). */
export const LOCK_PREFIX = 'agentchat.lock.session.'

export class TabLock {
  readonly tabId: string
  private storage: Storage
  private ttlMs: number
  private now: () => number
  private held = new Set<number>()

  constructor(options: TabLockOptions = {}) {
    this.storage = options.storage ?? localStorage
    this.ttlMs = options.ttlMs ?? 15_000
    this.now = options.now ?? Date.now
    this.tabId = options.tabId ?? Math.random().toString(36).slice(2) + this.now().toString(36)
  }

  private read(sessionId: number): LockRecord | null {
    try {
      const raw = this.storage.getItem(LOCK_PREFIX + sessionId)
      return raw ? (JSON.parse(raw) as LockRecord) : null
    } catch {
      return null
    }
  }

  /** True when another live tab holds the session. */
  heldElsewhere(sessionId: number): boolean {
    const rec = this.read(sessionId)
    return rec !== null && rec.tab !== this.tabId && rec.until > this.now()
  }

  /** Take the lock; false when another tab holds it. */
  acquire(sessionId: number): boolean {
    if (this.heldElsewhere(sessionId)) return false
    this.write(sessionId)
    this.held.add(sessionId)
    return true
  }

  private write(sessionId: number): void {
    try {
      this.storage.setItem(LOCK_PREFIX + sessionId, JSON.stringify({ tab: this.tabId, until: this.now() + this.ttlMs }))
    } catch {
      /* storage full or disabled: the server's one-run-per-session rule still holds */
    }
  }

  release(sessionId: number): void {
    this.held.delete(sessionId)
    const rec = this.read(sessionId)
    if (rec?.tab === this.tabId) this.storage.removeItem(LOCK_PREFIX + sessionId)
  }

  /** Extend every lock this tab holds (call on a timer shorter than ttlMs). */
  renew(): void {
    for (const id of this.held) this.write(id)
  }
}
