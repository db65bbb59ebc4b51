// The session list of the sidebar: search, paging, create, rename, archive, delete (a chat
// whose answer runs: stop it, wait for its end, then delete). Sessions with a live run are
// handed to the run pool so their spinners follow the run. A new search text (after a pause
// in typing) or the archive switch loads the list again.
import { getCurrentScope, onScopeDispose, ref, watch } from 'vue'
import { chatApi } from '@/api/chat'
import { ApiError } from '@/api/http'
import { runsApi } from '@/api/runs'
import type { Session } from '@/api/schema'
import { notifyError } from '@/lib/browser/notify'
import { tellOtherTabs } from '@/lib/browser/tabNews'
import { isTerminal } from '@/lib/run/runState'
import { useGlobalRuns, type RunPool } from './useGlobalRuns'

export interface SessionListOptions {
  searchDelayMs?: number
  /** How long a stopped answer may take to end before the delete is tried anyway. */
  stopWaitMs?: number
  /** Between delete attempts while the server still counts the stopped run as active. */
  retryMs?: number
}

const isEnd = (event: string) => event === 'workflow_complete' || event === 'workflow_error'

export function useSessionList(pool: RunPool = useGlobalRuns(), options: SessionListOptions = {}) {
  const { searchDelayMs = 250, stopWaitMs = 15_000, retryMs = 300 } = options
  const items = ref<Session[]>([])
  const query = ref('')
  const archived = ref(false)
  const hasMore = ref(false)
  const loading = ref(false)
  let cursor: string | null = null
  let seq = 0

  function follow(sessions: Session[]): void {
    for (const s of sessions) if (s.hasActiveRun && s.activeRunId) pool.track(s.activeRunId, { sessionId: s.id })
  }

  async function load(more = false): Promise<void> {
    const mine = ++seq
    loading.value = true
    try {
      const page = await chatApi.listSessions({
        status: archived.value ? 'ARCHIVED' : 'ACTIVE',
        q: query.value.trim() || undefined,
        limit: 50,
        cursor: more ? cursor : undefined,
      })
      if (mine !== seq) return
      items.value = more ? [...items.value, ...page.items] : page.items
      cursor = page.nextCursor
      hasMore.value = page.hasMore
      follow(page.items)
    } catch (err) {
      notifyError(err)
    } finally {
      if (mine === seq) loading.value = false
    }
  }

  async function create(body: Parameters<typeof chatApi.createSession>[0] = {}): Promise<Session | null> {
    try {
      const { session } = await chatApi.createSession(body)
      items.value = [session, ...items.value.filter((s) => s.id !== session.id)]
      return session
    } catch (err) {
      notifyError(err)
      return null
    }
  }

  async function update(id: number, body: Parameters<typeof chatApi.updateSession>[1]): Promise<boolean> {
    try {
      const updated = await chatApi.updateSession(id, body)
      items.value = items.value.map((s) => (s.id === id ? updated : s))
      return true
    } catch (err) {
      notifyError(err)
      return false
    }
  }

  const rename = (id: number, title: string) => update(id, { title: title.trim() })

  async function setArchived(id: number, value: boolean): Promise<boolean> {
    const ok = await update(id, { status: value ? 'ARCHIVED' : 'ACTIVE' })
    if (ok) items.value = items.value.filter((s) => s.id !== id)
    return ok
  }

  async function remove(id: number): Promise<boolean> {
    try {
      await chatApi.deleteSession(id)
      items.value = items.value.filter((s) => s.id !== id)
      tellOtherTabs({ deleted: id })
      return true
    } catch (err) {
      notifyError(err)
      return false
    }
  }

  /** The running answer of a chat, if any: the pool's, else the server's flag. */
  function activeRunOf(id: number): string | null {
    const followed = pool.sessionRun(id)
    if (followed) return pool.isRunning(id) ? followed.runId : null
    const row = items.value.find((s) => s.id === id)
    return row?.hasActiveRun ? row.activeRunId : null
  }

  /** Resolves once the run ended (its end event) or after `ms`. */
  function ended(runId: string, ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer)
        off()
        resolve()
      }
      const off = pool.onEvent((id, event) => id === runId && isEnd(event.event) && done())
      const timer = setTimeout(done, ms)
      if (isTerminal(pool.getState(runId)?.status ?? 'RUNNING')) done()
    })
  }

  /** Stop the chat's running answer, wait for its end, then delete the chat. */
  async function stopAndRemove(id: number, runId: string): Promise<boolean> {
    pool.track(runId, { sessionId: id })
    try {
      await pool.stop(runId)
    } catch (err) {
      if (!(err instanceof ApiError && err.code === 'run_finished')) {
        notifyError(err)
        return false
      }
    }
    await ended(runId, stopWaitMs)
    const deadline = Date.now() + stopWaitMs
    for (;;) {
      try {
        await chatApi.deleteSession(id)
        items.value = items.value.filter((s) => s.id !== id)
        tellOtherTabs({ deleted: id })
        return true
      } catch (err) {
        // the run's end is being stored: the server still counts it a moment
        if (err instanceof ApiError && err.status === 409 && Date.now() < deadline) {
          await new Promise((r) => setTimeout(r, retryMs))
          continue
        }
        notifyError(err)
        return false
      }
    }
  }

  /** Drop a chat the server no longer has (deleted in another tab) from the list. */
  function forget(id: number): void {
    items.value = items.value.filter((s) => s.id !== id)
  }

  /** The spinner: the pool knows best; otherwise the server's flag. */
  function isRunning(s: Session): boolean {
    return pool.sessionRun(s.id) ? pool.isRunning(s.id) : s.hasActiveRun
  }

  function isWaiting(s: Session): boolean {
    return pool.sessionRun(s.id) ? pool.waitingForInput(s.id) : s.hasPendingClarify
  }

  let searchTimer: ReturnType<typeof setTimeout> | undefined
  watch(query, () => {
    clearTimeout(searchTimer)
    searchTimer = setTimeout(() => void load(), searchDelayMs)
  })
  watch(archived, () => void load())
  if (getCurrentScope()) onScopeDispose(() => clearTimeout(searchTimer))

  return { items, query, archived, hasMore, loading, load, create, rename, setArchived, remove, stopAndRemove, activeRunOf, forget, isRunning, isWaiting }
}

export type SessionList = ReturnType<typeof useSessionList>
