// The three pieces of the run pool, each on its own: the stream transport with back-off, the
// /state polling fallback, and the registry that folds events into runs.
import { afterEach, describe, expect, it, vi } from 'vitest'
import { ApiError } from '@/api/http'
import type { RunSnapshot } from '@/api/schema'
import { createRunPolling } from '@/composables/runs/runPolling'
import { createRunRegistry } from '@/composables/runs/runRegistry'
import { createRunStream, type StreamTarget } from '@/composables/runs/runStream'
import type { RunEvent } from '@/lib/run/runState'
import { streamFetch, until } from './streamStub'

const disposers: (() => void)[] = []
afterEach(() => {
  while (disposers.length) disposers.pop()!()
})

function snapshot(runId: string, status: RunSnapshot['status'], fields: Partial<RunSnapshot> = {}): RunSnapshot {
  return {
    runId, sessionId: 1, messageId: 7, status, eventCount: 3, pendingClarify: null, finalText: null, error: null,
    logs: [], ...fields,
  }
}

describe('runStream', () => {
  function make(targets: StreamTarget[], status?: (n: number) => number, silenceMs?: number) {
    const stub = streamFetch({ status })
    const seen = { events: [] as RunEvent[], lost: [] as number[], connected: [] as string[][], gaveUp: 0 }
    const stream = createRunStream({
      fetch: stub.fetch,
      backoffMs: [1, 1],
      silenceMs,
      targets: () => targets,
      onEvent: (e) => seen.events.push(e),
      onConnected: (ids) => seen.connected.push(ids),
      onLost: (s) => seen.lost.push(s),
      onGiveUp: () => seen.gaveUp++,
    })
    disposers.push(stream.dispose)
    return { stub, stream, seen }
  }

  it('opens one connection with the last ids and hands parsed events on', async () => {
    const { stub, stream, seen } = make([{ runId: 'a', lastEventId: 4 }])
    stream.sync()
    stream.sync() // already connected to every target: nothing new
    await until(() => seen.connected.length === 1)
    expect(stub.opened).toHaveLength(1)
    expect(stub.last().lastIds).toEqual([4])
    stub.last().raw('id: a:5\nevent: node_stream\ndata: {"runId":"a","kind":"thinking","content":"x"}\n\n')
    await until(() => seen.events.length === 1)
    expect(seen.events[0]).toMatchObject({ id: 5, event: 'node_stream', data: { runId: 'a' } })
    expect(stream.state.connected).toBe(true)
  })

  it('retries with back-off, then gives up until resume', async () => {
    const { stub, stream, seen } = make([{ runId: 'a', lastEventId: 0 }], () => 503)
    stream.sync()
    await until(() => seen.gaveUp === 1)
    expect(stub.opened).toHaveLength(3) // first try + two retries
    expect(seen.lost).toEqual([503, 503, 503])
    stream.sync() // paused: no new connection
    expect(stub.opened).toHaveLength(3)
    stream.resume()
    await until(() => seen.gaveUp === 2) // one more failure gives up again at once
    expect(stub.opened).toHaveLength(4)
  })

  it('reopens a connection that went silent (no event, no ping), from the last ids', async () => {
    const targets = [{ runId: 'a', lastEventId: 2 }]
    // 8 pings 50 ms apart outlast the 300 ms of silence allowed: only the pings keep it open.
    // (60 ms against 30 ms apart failed when a busy machine stretched one 30 ms wait to 60.)
    const { stub, stream, seen } = make(targets, undefined, 300)
    stream.sync()
    await until(() => seen.connected.length === 1)
    for (let i = 0; i < 8; i++) {
      stub.last().raw(': ping\n\n') // the server's pings keep a quiet connection alive
      await new Promise((r) => setTimeout(r, 50))
    }
    expect(stub.opened).toHaveLength(1)
    targets[0].lastEventId = 3 // the network dies silently: no error, nothing more arrives
    await until(() => stub.opened.length === 2)
    expect(stub.opened[0].aborted).toBe(true)
    expect(seen.lost).toEqual([0])
    expect(stub.last().lastIds).toEqual([3])
    await until(() => seen.connected.length === 2)
  })

  it('reconnects at once when the network comes back, even while waiting out its back-off', async () => {
    const { stub, stream, seen } = make([{ runId: 'a', lastEventId: 0 }], (n) => (n < 3 ? 503 : 200))
    stream.sync()
    await until(() => seen.gaveUp === 1)
    expect(stub.opened).toHaveLength(3)
    stream.restart() // the browser says it is online again
    await until(() => seen.connected.length === 1)
    expect(stub.opened).toHaveLength(4)
    stream.restart() // a live connection is replaced too (it may be a dead one)
    await until(() => seen.connected.length === 2)
    expect(stub.opened[3].aborted).toBe(true)
    expect(stub.opened).toHaveLength(5)
  })

  it('closes when no run is left to follow', async () => {
    const targets = [{ runId: 'a', lastEventId: 0 }]
    const { stub, stream, seen } = make(targets)
    stream.sync()
    await until(() => seen.connected.length === 1)
    targets.pop()
    stream.sync()
    expect(stub.last().aborted).toBe(true)
    expect(stream.state.connected).toBe(false)
    expect(seen.lost).toEqual([])
  })
})

describe('runPolling', () => {
  it('polls every live run, reports 404 as gone, and hands back to the stream after a while', async () => {
    let clock = 0
    const snapshots: string[] = []
    const gone: string[] = []
    let retried = 0
    const polling = createRunPolling({
      pollMs: 1,
      streamRetryMs: 3,
      now: () => clock++,
      liveIds: () => ['a', 'b'],
      fetchSnapshot: async (runId) => {
        if (runId === 'b') throw new ApiError('unknown run', 404, 'not_found')
        return snapshot(runId, 'RUNNING')
      },
      onSnapshot: (runId) => snapshots.push(runId),
      onGone: (runId) => gone.push(runId),
      onRetryStream: () => retried++,
    })
    disposers.push(polling.dispose)
    polling.start()
    expect(polling.state.polling).toBe(true)
    await until(() => retried === 1)
    expect(polling.state.polling).toBe(false)
    expect(snapshots.length).toBeGreaterThan(0)
    expect(new Set(gone)).toEqual(new Set(['b']))
  })

  it('ignores errors other than 404', async () => {
    const gone = vi.fn()
    const polling = createRunPolling({
      pollMs: 1, streamRetryMs: 1000, now: () => 0, liveIds: () => ['a'],
      fetchSnapshot: async () => {
        throw new ApiError('down', 502, 'bad_gateway')
      },
      onSnapshot: vi.fn(), onGone: gone, onRetryStream: vi.fn(),
    })
    disposers.push(polling.dispose)
    await polling.pollRun('a')
    expect(gone).not.toHaveBeenCalled()
  })
})

describe('runRegistry', () => {
  function make() {
    const onLiveChange = vi.fn()
    const registry = createRunRegistry({ now: () => 1000, cleanupMs: 5, onLiveChange })
    disposers.push(registry.dispose)
    const heard: string[] = []
    registry.onEvent((runId, e) => heard.push(`${runId}:${e.event}`))
    return { registry, onLiveChange, heard }
  }

  it('routes events by runId, drops duplicates and events after the end, forgets finished runs', async () => {
    const { registry, onLiveChange, heard } = make()
    registry.track('a', { sessionId: 1 })
    registry.track('a', { sessionId: 1 })
    expect(onLiveChange).toHaveBeenCalledTimes(1)
    const delta = (id: number, content: string): RunEvent => ({ id, event: 'node_stream', data: { runId: 'a', kind: 'answer_delta', content } })
    registry.receive(delta(1, 'x'))
    registry.receive(delta(1, 'x'))
    expect(registry.receive({ id: 1, event: 'node_stream', data: { runId: 'zzz' } } as RunEvent)).toBeNull()
    registry.receive({ id: 2, event: 'workflow_complete', data: { runId: 'a', finalText: 'done' } } as RunEvent)
    registry.receive(delta(3, 'late'))
    expect(registry.getState('a')?.answer).toBe('done')
    expect(heard).toEqual(['a:node_stream', 'a:workflow_complete'])
    expect(registry.liveIds()).toEqual([])
    expect(onLiveChange).toHaveBeenCalledTimes(2)
    await until(() => registry.getState('a') === null)
  })

  it('shows a snapshot while polling and ends a run from a finished one', () => {
    const { registry, heard } = make()
    registry.track('a', { sessionId: 1 })
    const clarify = { clarifyId: 'c', question: 'Q?', choices: [] }
    registry.applySnapshot('a', snapshot('a', 'RUNNING', { pendingClarify: clarify }))
    expect(registry.getState('a')?.pendingClarify).toEqual(clarify)
    registry.clarifyAnswered('a', 'c')
    expect(registry.getState('a')?.pendingClarify).toBeNull()
    registry.applySnapshot('a', snapshot('a', 'FAILED', { error: 'boom', eventCount: 9 }))
    expect(registry.getState('a')).toMatchObject({ status: 'FAILED', error: 'boom', lastEventId: 9 })
    expect(heard).toEqual(['a:workflow_error'])
  })

  it('keeps the question of an answer the page sent before the stream said it was answered', () => {
    const { registry } = make()
    registry.track('a', { sessionId: 1 })
    const question = 'Allow this command (recursive delete)?\nrm -rf ./scratch'
    const meta = { clarifyId: 'c', question, choices: ['Allow once', 'Allow for this chat', 'Deny'] }
    registry.receive({ id: 1, event: 'node_stream', data: { runId: 'a', kind: 'clarify_request', content: question, meta } } as RunEvent)
    registry.clarifyAnswered('a', 'c') // the POST came back first
    expect(registry.getState('a')?.pendingClarify).toBeNull()
    const answered = { clarifyId: 'c', answer: 'Deny' }
    registry.receive({ id: 2, event: 'node_stream', data: { runId: 'a', kind: 'clarify_answered', content: 'Deny', meta: answered } } as RunEvent)
    expect(registry.getState('a')?.clarifications).toEqual([{ clarifyId: 'c', question, answer: 'Deny' }])
  })

  it('ends a run from an INTERRUPTED snapshot as interrupted', () => {
    const { registry } = make()
    registry.track('a', { sessionId: 1 })
    registry.applySnapshot('a', snapshot('a', 'INTERRUPTED', { error: 'restarted', eventCount: 4 }))
    expect(registry.getState('a')).toMatchObject({ status: 'INTERRUPTED', error: 'restarted', lastEventId: 4 })
  })

  it('reports a lost run as ended and finds the live run of a session', () => {
    const { registry } = make()
    registry.track('old', { sessionId: 1 })
    registry.lose('old')
    registry.track('new', { sessionId: 1 })
    expect(registry.runOfSession(1)?.runId).toBe('new')
    expect(registry.getState('old')?.status).toBe('FAILED')
  })
})
