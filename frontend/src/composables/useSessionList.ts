// The session list of the sidebar: search, paging, create, rename, archive, delete. Sessions
// with a live run are handed to the run pool so their spinners follow the run. A new search
// text (after a pause in typing) or the archive switch loads the list again.
import { getCurrentScope, onScopeDispose, ref, watch } from 'vue'
import { chatApi } from '@/api/chat'
import type { Session } from '@/api/schema'
import { notifyError } from '@/lib/notify'
import { useGlobalRuns, type RunPool } from './useGlobalRuns'

export function useSessionList(pool: RunPool = useGlobalRuns(), searchDelayMs = 250) {
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
      return true
    } catch (err) {
      notifyError(err)
      return false
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

  return { items, query, archived, hasMore, loading, load, create, rename, setArchived, remove, forget, isRunning, isWaiting }
}

export type SessionList = ReturnType<typeof useSessionList>
