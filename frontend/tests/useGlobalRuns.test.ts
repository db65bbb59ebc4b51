import { afterEach, describe, expect, it, vi } from 'vitest'
import { ApiError } from '@/api/http'
import type { RunSnapshot } from '@/api/schema'
import { createRunPool, type RunPool } from '@/composables/useGlobalRuns'
import { streamFetch, until } from './streamStub'

let pool: RunPool | null = null
afterEach(() => {
  pool?.dispose()
  pool = null
})

function make(extra: Parameters<typeof createRunPool>[0] = {}) {
  const stub = streamFetch()
  pool = createRunPool({ fetch: stub.fetch, backoffMs: [5, 5], pollMs: 5, streamRetryMs: 1000, cleanupMs: 50, ...extra })
  return { stub, pool }
}

describe('useGlobalRuns', () => {
  it('multiplexes all live runs over one connection and routes events by runId', async () => {
    const { stub, pool } = make()
    pool.track('a', { sessionId: 1 })
    pool.track('b', { sessionId: 2 })
    await until(() => stub.opened.length === 1)
    await Promise.resolve()
    expect(stub.opened).toHaveLength(1) // two tracks in one tick: one connection
    const s = stub.last()
    expect(s.url.pathname).toBe('/api/chat/stream')
    expect(s.runs).toEqual(['a', 'b'])
    expect(s.lastIds).toEqual([0, 0])
    s.send('a', 1, 'node_stream', { kind: 'answer_delta', content: 'A' })
    s.send('b', 1, 'node_stream', { kind: 'answer_delta', content: 'B' })
    s.send('zzz', 1, 'node_stream', { kind: 'answer_delta', content: '?' })
    await until(() => pool.getState('b')?.answer === 'B')
    expect(pool.getState('a')?.answer).toBe('A')
    expect(pool.isRunning(1)).toBe(true)
    expect(pool.isRunning(3)).toBe(false)
  })

  it('reopens with last event ids when a run joins, and drops duplicates', async () => {
    const { stub, pool } = make()
    pool.track('a', { sessionId: 1 })
    await until(() => stub.opened.length === 1)
    const first = stub.last()
    first.send('a', 1, 'node_stream', { kind: 'answer_delta', content: 'x' })
    first.send('a', 2, 'node_stream', { kind: 'answer_delta', content: 'y' })
    await until(() => pool.getState('a')?.answer === 'xy')
    pool.track('b', { sessionId: 2 })
    await until(() => stub.opened.length === 2)
    expect(first.aborted).toBe(true)
    const second = stub.last()
    expect(second.runs).toEqual(['a', 'b'])
    expect(second.lastIds).toEqual([2, 0])
    second.send('a', 2, 'node_stream', { kind: 'answer_delta', content: 'y' }) // replayed duplicate
    second.send('a', 3, 'node_stream', { kind: 'answer_delta', content: 'z' })
    await until(() => pool.getState('a')?.lastEventId === 3)
    expect(pool.getState('a')?.answer).toBe('xyz')
  })

  it('does not reconnect when a run finishes, closes when none is left, cleans up later', async () => {
    const { stub, pool } = make()
    const seen: string[] = []
    pool.onEvent((runId, ev) => seen.push(`${runId}:${ev.event}`))
    pool.track('a', { sessionId: 1 })
    pool.track('b', { sessionId: 1 })
    await until(() => stub.opened.length === 1)
    const s = stub.last()
    s.send('a', 1, 'workflow_complete', { messageId: 5, finalText: 'done' })
    await until(() => pool.getState('a')?.status === 'SUCCESS')
    await new Promise((r) => setTimeout(r, 10))
    expect(stub.opened).toHaveLength(1)
    expect(pool.liveRunIds()).toEqual(['b'])
    s.send('b', 1, 'workflow_error', { messageId: 6, message: 'bad' })
    await until(() => s.aborted)
    expect(pool.getState('b')?.error).toBe('bad')
    expect(seen).toEqual(['a:workflow_complete', 'b:workflow_error'])
    await until(() => pool.getState('a') === null && pool.getState('b') === null)
  })

  it('reconnects after a dropped connection, resuming after the last id', async () => {
    const { stub, pool } = make()
    pool.track('a', { sessionId: 1 })
    await until(() => stub.opened.length === 1)
    stub.last().send('a', 1, 'node_stream', { kind: 'thinking', content: 'hm' })
    await until(() => pool.getState('a')?.lastEventId === 1)
    stub.last().fail()
    await until(() => pool.isReconnecting('a'))
    await until(() => stub.opened.length === 2)
    expect(stub.last().lastIds).toEqual([1])
    stub.last().send('a', 2, 'node_stream', { kind: 'thinking', content: '!' })
    await until(() => pool.getState('a')?.thinking === 'hm!')
    expect(pool.isReconnecting('a')).toBe(false)
  })

  it('falls back to polling /state after the back-off, then finishes from the snapshot', async () => {
    const stub = streamFetch({ status: () => 503 })
    let status: RunSnapshot['status'] = 'RUNNING'
    const getState = vi.fn(async (runId: string): Promise<RunSnapshot> => ({
      runId, sessionId: 1, messageId: 9, status, eventCount: 4, finalText: null, error: null,
      pendingClarify: { clarifyId: 'c', question: 'Q?', choices: ['x'] },
      logs: [{ seq: 1, kind: 'tool_call', content: 'args', toolName: 'search', meta: null }],
    }))
    pool = createRunPool({ fetch: stub.fetch, getState, backoffMs: [1, 1], pollMs: 5, streamRetryMs: 100_000, cleanupMs: 1000 })
    const events: string[] = []
    pool.onEvent((_, ev) => events.push(ev.event))
    pool.track('a', { sessionId: 1 })
    await until(() => pool!.connection.polling)
    expect(stub.opened.length).toBe(3) // first try + two back-off retries
    await until(() => pool!.getState('a')?.toolHistory.length === 1)
    expect(pool.getPendingClarify('a')?.clarifyId).toBe('c')
    expect(pool.isReconnecting('a')).toBe(true)
    expect(pool.waitingForInput(1)).toBe(true)
    status = 'SUCCESS'
    await until(() => pool!.getState('a')?.status === 'SUCCESS')
    expect(events).toEqual(['workflow_complete'])
    expect(pool.connection.polling).toBe(false)
  })

  it('tries the stream again while polling and goes back to it', async () => {
    let calls = 0
    const stub = streamFetch({ status: (n) => (n < 2 ? 503 : 200) })
    const getState = vi.fn(async (runId: string): Promise<RunSnapshot> => {
      calls++
      return { runId, sessionId: 1, messageId: 9, status: 'RUNNING', eventCount: 0, finalText: null, error: null, pendingClarify: null, logs: [] }
    })
    let now = 0
    pool = createRunPool({ fetch: stub.fetch, getState, backoffMs: [1], pollMs: 2, streamRetryMs: 3, cleanupMs: 1000, now: () => (now += 1) })
    pool.track('a', { sessionId: 1 })
    await until(() => stub.opened.length === 3)
    expect(calls).toBeGreaterThan(0)
    stub.last().send('a', 1, 'node_stream', { kind: 'answer_delta', content: 'back' })
    await until(() => pool!.getState('a')?.answer === 'back')
    expect(pool.connection.polling).toBe(false)
    expect(pool.isReconnecting('a')).toBe(false)
  })

  it('goes back to the stream as soon as the browser is online again, polling or not', async () => {
    const stub = streamFetch({ status: (n) => (n < 3 ? 503 : 200) })
    const getState = vi.fn(async (runId: string): Promise<RunSnapshot> => ({
      runId, sessionId: 1, messageId: 9, status: 'RUNNING', eventCount: 0, finalText: null, error: null, pendingClarify: null, logs: [],
    }))
    pool = createRunPool({ fetch: stub.fetch, getState, backoffMs: [1, 1], pollMs: 5, streamRetryMs: 100_000, cleanupMs: 1000 })
    pool.track('a', { sessionId: 1 })
    await until(() => pool!.connection.polling)
    expect(stub.opened).toHaveLength(3)
    window.dispatchEvent(new Event('online'))
    await until(() => pool!.connection.connected)
    expect(pool.connection.polling).toBe(false)
    expect(pool.isReconnecting('a')).toBe(false)
    stub.last().send('a', 1, 'node_stream', { kind: 'answer_delta', content: 'back online' })
    await until(() => pool!.getState('a')?.answer === 'back online')
    window.dispatchEvent(new Event('online')) // a connection that may have died with the network
    await until(() => stub.opened.length === 5)
    expect(stub.opened[3].aborted).toBe(true)
    expect(stub.last().lastIds).toEqual([1])
  })

  it('reports a run the server no longer knows as ended', async () => {
    const stub = streamFetch({ status: () => 404 })
    const getState = vi.fn(async (): Promise<RunSnapshot> => {
      throw new ApiError('unknown run', 404, 'not_found')
    })
    pool = createRunPool({ fetch: stub.fetch, getState, backoffMs: [50], pollMs: 5, cleanupMs: 1000 })
    const events: Record<string, unknown>[] = []
    pool.onEvent((_, ev) => events.push(ev.data))
    pool.track('gone', { sessionId: 1 })
    await until(() => events.length === 1)
    expect(events[0]).toMatchObject({ runId: 'gone', lost: true })
    expect(pool.isRunning(1)).toBe(false)
  })

  it('submits a clarify answer and clears the pending ask', async () => {
    const resumeRun = vi.fn(async () => ({}))
    const { stub, pool } = make({ resumeRun })
    pool.track('a', { sessionId: 1 })
    await until(() => stub.opened.length === 1)
    stub.last().send('a', 1, 'node_stream', { kind: 'clarify_request', content: '', meta: { clarifyId: 'c1', question: 'Q', choices: ['y', 'n'] } })
    await until(() => pool.getPendingClarify('a') !== null)
    expect(pool.waitingForInput(1)).toBe(true)
    await pool.submitClarify('a', 'c1', 'y')
    expect(resumeRun).toHaveBeenCalledWith('a', 'c1', 'y')
    expect(pool.getPendingClarify('a')).toBeNull()
  })

  it('track is idempotent: switching sessions never opens a second stream for a run', async () => {
    const { stub, pool } = make()
    pool.track('a', { sessionId: 1 })
    pool.track('a', { sessionId: 1 })
    await until(() => stub.opened.length === 1)
    pool.track('a')
    await new Promise((r) => setTimeout(r, 10))
    expect(stub.opened).toHaveLength(1)
  })
})

describe('useGlobalRuns with the server id format', () => {
  it('reads "<runId>:<N>" ids and settles a run_unknown run from /state', async () => {
    const getState = vi.fn(async (runId: string): Promise<RunSnapshot> => ({
      runId, sessionId: 1, messageId: 9, status: 'SUCCESS', eventCount: 7, finalText: null, error: null, pendingClarify: null, logs: [],
    }))
    const stub = streamFetch()
    pool = createRunPool({ fetch: stub.fetch, getState, backoffMs: [5], cleanupMs: 1000 })
    const events: string[] = []
    pool.onEvent((runId, ev) => events.push(`${runId}:${ev.event}`))
    pool.track('a', { sessionId: 1 })
    pool.track('old', { sessionId: 2 })
    await until(() => stub.opened.length === 1)
    const s = stub.last()
    s.raw('id: a:1\nevent: node_stream\ndata: {"runId":"a","kind":"answer_delta","content":"x"}\n\n')
    s.raw('id: a:1\nevent: node_stream\ndata: {"runId":"a","kind":"answer_delta","content":"x"}\n\n')
    s.raw('event: run_unknown\ndata: {"runId":"old"}\n\n')
    await until(() => pool!.getState('old')?.status === 'SUCCESS')
    expect(pool.getState('a')?.answer).toBe('x')
    expect(pool.getState('a')?.lastEventId).toBe(1)
    expect(events).toEqual(['a:node_stream', 'old:workflow_complete']) // the duplicate a:1 is dropped
    expect(getState).toHaveBeenCalledWith('old')
  })
})
