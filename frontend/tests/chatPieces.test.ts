// The one-concern composables of the chat view: export download, cross-tab lock heartbeat and
// the session list's search.
import { afterEach, describe, expect, it, vi } from 'vitest'
import { effectScope, nextTick } from 'vue'
import { useExportDownload } from '@/composables/useExportDownload'
import { createRunPool } from '@/composables/useGlobalRuns'
import { useSessionList } from '@/composables/useSessionList'
import { useTabLock } from '@/composables/useTabLock'
import { setNotifier } from '@/lib/browser/notify'
import { TabLock } from '@/lib/browser/tabLock'
import { until } from './streamStub'

afterEach(() => {
  setNotifier(null)
  vi.unstubAllGlobals()
  vi.restoreAllMocks()
})

describe('useExportDownload', () => {
  it('downloads under the server file name, and reports an HTTP error', async () => {
    const errors: string[] = []
    setNotifier({ error: (t) => errors.push(t), success: () => undefined, info: () => undefined })
    const urls: string[] = []
    vi.stubGlobal('fetch', async (url: string) => {
      urls.push(url)
      if (url.includes('/sessions/2/')) return new Response('nope', { status: 500 })
      return new Response('# chat', { headers: { 'Content-Disposition': 'attachment; filename="my-chat.md"' } })
    })
    URL.createObjectURL = vi.fn(() => 'blob:x')
    URL.revokeObjectURL = vi.fn()
    const names: string[] = []
    vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (this: HTMLAnchorElement) {
      names.push(this.download)
    })
    const { download } = useExportDownload()
    expect(await download(1, 'md')).toBe(true)
    expect(urls[0]).toBe('/api/chat/sessions/1/export?format=md&branch=active')
    expect(names).toEqual(['my-chat.md'])
    expect(await download(2, 'json')).toBe(false)
    expect(errors).toHaveLength(1)
  })
})

describe('useTabLock', () => {
  it('renews the locks this tab holds until its scope ends', async () => {
    let now = 0
    const lock = new TabLock({ tabId: 'me', ttlMs: 10, now: () => now })
    const other = new TabLock({ tabId: 'other', ttlMs: 10, now: () => now })
    const scope = effectScope()
    scope.run(() => useTabLock(lock, 1))
    lock.acquire(5)
    now = 50 // past the first ttl: only the heartbeat keeps the lock
    await until(() => other.heldElsewhere(5))
    scope.stop()
    now = 100
    await new Promise((r) => setTimeout(r, 5))
    expect(other.heldElsewhere(5)).toBe(false)
  })
})

describe('useSessionList', () => {
  it('loads again after a pause in typing the search, and when the archive switch flips', async () => {
    const queries: string[] = []
    vi.stubGlobal('fetch', async (url: string) => {
      queries.push(new URL(url, 'http://x').search)
      return new Response(JSON.stringify({ items: [], nextCursor: null, hasMore: false }), {
        headers: { 'Content-Type': 'application/json' },
      })
    })
    const pool = createRunPool({ fetch: vi.fn() })
    const scope = effectScope()
    const list = scope.run(() => useSessionList(pool, { searchDelayMs: 5 }))!
    list.query.value = 'a'
    await nextTick()
    list.query.value = 'ab'
    await until(() => queries.length === 1)
    expect(queries[0]).toContain('q=ab')
    list.archived.value = true
    await until(() => queries.length === 2)
    expect(queries[1]).toContain('status=ARCHIVED')
    scope.stop()
    pool.dispose()
  })

  it('stops a running answer, waits for its end, and deletes the chat once the server lets it', async () => {
    const calls: string[] = []
    let deletes = 0
    vi.stubGlobal('fetch', async (url: string, init: RequestInit = {}) => {
      calls.push(`${init.method ?? 'GET'} ${url}`)
      if (url.endsWith('/stop')) return new Response(JSON.stringify({}), { headers: { 'Content-Type': 'application/json' } })
      if (init.method === 'DELETE' && ++deletes === 1) {
        const body = { error: { code: 'conflict', message: 'chat session 7 has an active run; stop it first' } }
        return new Response(JSON.stringify(body), { status: 409, headers: { 'Content-Type': 'application/json' } })
      }
      return new Response(null, { status: 204 })
    })
    const errors: string[] = []
    setNotifier({ error: (t) => errors.push(t), success: () => undefined, info: () => undefined })
    const pool = createRunPool({ fetch: vi.fn(), stopRun: async () => undefined })
    const scope = effectScope()
    // the run never ends here: the wait for its end runs out, then the deletes get as long
    // (20 ms was too short for a refused delete and its retry on a loaded machine)
    const list = scope.run(() => useSessionList(pool, { stopWaitMs: 1000, retryMs: 1 }))!
    expect(await list.stopAndRemove(7, 'run-7')).toBe(true)
    expect(calls.filter((c) => c.startsWith('DELETE'))).toHaveLength(2) // refused once, then done
    expect(errors).toEqual([])
    scope.stop()
    pool.dispose()
  })
})
