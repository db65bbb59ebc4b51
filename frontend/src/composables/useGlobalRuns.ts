// The app-wide pool of live runs (spec §5.7). Every live run keeps being followed while the
// person switches sessions. One tab holds ONE fetch-based SSE connection for all its live runs
// (GET /api/chat/stream?runs=a,b&lastEventIds=3,0), reopened when a new run joins, resumed
// after the last event id of each run so nothing is missed or applied twice. A failed
// connection is retried with back-off, then the pool polls GET /runs/{id}/state instead (and
// keeps trying the stream now and then). A finished run's state is dropped after a while.
import { reactive } from 'vue'
import { ApiError, authFetch } from '@/api/http'
import { runsApi } from '@/api/runs'
import type { RunEvent, RunSnapshot } from '@/api/types'
import { buildSnapshotState, snapshotStatus } from '@/lib/replay'
import {
  applyEvent,
  emptyRunState,
  isTerminal,
  TERMINAL_EVENTS,
  type PendingAsk,
  type RunState,
} from '@/lib/runState'
import { eventNumber, SseParser } from '@/lib/sse'

export interface RunEntry {
  runId: string
  sessionId: number | null
  state: RunState // folded from stream events (exact, deduplicated by id)
  polled: RunState | null // the /state snapshot shown while the stream is down
  reconnecting: boolean
}

export type RunListener = (runId: string, event: RunEvent, entry: RunEntry) => void

export interface RunPoolOptions {
  fetch?: (url: string, init?: RequestInit) => Promise<Response>
  getState?: (runId: string) => Promise<RunSnapshot>
  stopRun?: (runId: string) => Promise<unknown>
  resumeRun?: (runId: string, clarifyId: string, answer: string) => Promise<unknown>
  backoffMs?: number[]
  pollMs?: number
  streamRetryMs?: number
  cleanupMs?: number
  now?: () => number
}

export interface TrackOptions {
  sessionId?: number | null
  lastEventId?: number
  startedAt?: number | null
}

const DEFAULTS = {
  backoffMs: [500, 1000, 2000, 4000],
  pollMs: 2000,
  streamRetryMs: 15_000,
  cleanupMs: 5 * 60_000,
}

export function createRunPool(options: RunPoolOptions = {}) {
  const fetchFn = options.fetch ?? authFetch
  const fetchSnapshot = options.getState ?? runsApi.state
  const stopRun = options.stopRun ?? runsApi.stop
  const resumeRun = options.resumeRun ?? runsApi.resume
  const backoff = options.backoffMs ?? DEFAULTS.backoffMs
  const pollMs = options.pollMs ?? DEFAULTS.pollMs
  const streamRetryMs = options.streamRetryMs ?? DEFAULTS.streamRetryMs
  const cleanupMs = options.cleanupMs ?? DEFAULTS.cleanupMs
  const now = options.now ?? Date.now

  const runs = reactive(new Map<string, RunEntry>())
  const listeners = new Set<RunListener>()
  const timers = new Set<ReturnType<typeof setTimeout>>()
  const connection = reactive({ connected: false, polling: false, opens: 0 })

  let controller: AbortController | null = null
  let connectedIds = new Set<string>()
  let failures = 0
  let syncQueued = false
  let retryTimer: ReturnType<typeof setTimeout> | null = null
  let pollTimer: ReturnType<typeof setTimeout> | null = null
  let pollStartedAt = 0
  let disposed = false

  function later(fn: () => void, ms: number): ReturnType<typeof setTimeout> {
    const t = setTimeout(() => {
      timers.delete(t)
      fn()
    }, ms)
    timers.add(t)
    return t
  }

  function cancel(t: ReturnType<typeof setTimeout> | null): null {
    if (t) {
      clearTimeout(t)
      timers.delete(t)
    }
    return null
  }

  function liveIds(): string[] {
    return [...runs.values()].filter((e) => !isTerminal(e.state.status)).map((e) => e.runId).sort()
  }

  // ---- events -------------------------------------------------------------------------------

  function emit(runId: string, event: RunEvent, entry: RunEntry): void {
    for (const listener of [...listeners]) {
      try {
        listener(runId, event, entry)
      } catch (err) {
        console.error('run listener failed', err)
      }
    }
  }

  function finished(entry: RunEntry): void {
    entry.polled = null
    entry.reconnecting = false
    const runId = entry.runId
    later(() => {
      const current = runs.get(runId)
      if (current && isTerminal(current.state.status)) runs.delete(runId)
    }, cleanupMs)
    scheduleSync()
  }

  /** Apply one event of the stream to its run (ignored when already seen). */
  function receive(event: RunEvent): void {
    const runId = typeof event.data.runId === 'string' ? event.data.runId : null
    const entry = runId ? runs.get(runId) : undefined
    if (!entry) return
    if (event.event === 'run_unknown') {
      void settleUnknown(entry)
      return
    }
    if (event.id !== null && event.id <= entry.state.lastEventId) return
    if (isTerminal(entry.state.status)) return
    entry.state = applyEvent(entry.state, event, now())
    entry.polled = null
    emit(entry.runId, event, entry)
    if (TERMINAL_EVENTS.has(event.event)) finished(entry)
  }

  // ---- the multiplexed stream ---------------------------------------------------------------

  function scheduleSync(): void {
    if (syncQueued || disposed) return
    syncQueued = true
    queueMicrotask(() => {
      syncQueued = false
      sync()
    })
  }

  function closeStream(): void {
    controller?.abort()
    controller = null
    connectedIds = new Set()
    connection.connected = false
  }

  function sync(): void {
    if (disposed) return
    const ids = liveIds()
    if (!ids.length) {
      closeStream()
      stopPolling()
      retryTimer = cancel(retryTimer)
      failures = 0
      return
    }
    if (connection.polling || retryTimer) return
    if (controller && ids.every((id) => connectedIds.has(id))) return
    void openStream(ids)
  }

  async function openStream(ids: string[]): Promise<void> {
    closeStream()
    const ctl = new AbortController()
    controller = ctl
    connectedIds = new Set(ids)
    connection.opens++
    const url = runsApi.streamUrl(ids.map((runId) => ({ runId, lastEventId: runs.get(runId)!.state.lastEventId })))
    let status = 0
    let received = 0
    try {
      const response = await fetchFn(url, {
        headers: { Accept: 'text/event-stream' },
        cache: 'no-store',
        signal: ctl.signal,
      })
      status = response.status
      if (!response.ok || !response.body) throw new ApiError(`stream answered ${response.status}`, status, 'stream')
      connection.connected = true
      for (const id of ids) {
        const e = runs.get(id)
        if (e) e.reconnecting = false
      }
      received = await readStream(response.body, ctl.signal)
    } catch {
      /* handled below: aborted, network error or an HTTP error */
    }
    if (ctl.signal.aborted || controller !== ctl) return
    controller = null
    connectedIds = new Set()
    connection.connected = false
    if (status >= 200 && status < 300 && received > 0) failures = 0
    onStreamLost(status)
  }

  async function readStream(body: ReadableStream<Uint8Array>, signal: AbortSignal): Promise<number> {
    const reader = body.getReader()
    const decoder = new TextDecoder()
    const parser = new SseParser()
    let count = 0
    signal.addEventListener('abort', () => void reader.cancel().catch(() => undefined))
    for (;;) {
      const { done, value } = await reader.read()
      if (done || signal.aborted) break
      for (const message of parser.push(decoder.decode(value, { stream: true }))) {
        let data: Record<string, unknown>
        try {
          data = JSON.parse(message.data)
        } catch {
          continue
        }
        count++
        receive({ id: eventNumber(message.id), event: message.event, data })
      }
    }
    return count
  }

  function onStreamLost(status: number): void {
    const ids = liveIds()
    if (!ids.length) return
    for (const id of ids) runs.get(id)!.reconnecting = true
    if (status >= 400 && status < 500) void pollOnce() // a run the server no longer knows?
    failures++
    if (failures <= backoff.length) {
      retryTimer = later(() => {
        retryTimer = null
        sync()
      }, backoff[failures - 1])
    } else {
      startPolling()
    }
  }

  // ---- polling fallback ---------------------------------------------------------------------

  function startPolling(): void {
    if (connection.polling) return
    connection.polling = true
    pollStartedAt = now()
    void pollLoop()
  }

  function stopPolling(): void {
    connection.polling = false
    pollTimer = cancel(pollTimer)
  }

  async function pollLoop(): Promise<void> {
    if (!connection.polling || disposed) return
    await pollOnce()
    if (!connection.polling || disposed) return
    if (now() - pollStartedAt >= streamRetryMs && liveIds().length) {
      stopPolling() // try the stream again; failures stays high, so one more failure polls again
      failures = backoff.length
      sync()
      return
    }
    pollTimer = later(() => void pollLoop(), pollMs)
  }

  async function pollOnce(): Promise<void> {
    await Promise.all(liveIds().map((id) => pollRun(id)))
  }

  async function pollRun(runId: string): Promise<void> {
    const entry = runs.get(runId)
    if (!entry) return
    let snapshot: RunSnapshot
    try {
      snapshot = await fetchSnapshot(runId)
    } catch (err) {
      if (err instanceof ApiError && err.status === 404) lose(entry)
      return
    }
    if (isTerminal(entry.state.status)) return
    const polled = buildSnapshotState(snapshot, entry.state.startedAt)
    entry.polled = { ...polled, answer: entry.state.answer || polled.answer }
    const status = snapshotStatus(snapshot)
    if (isTerminal(status)) {
      const event: RunEvent =
        status === 'SUCCESS'
          ? { id: null, event: 'workflow_complete', data: { runId, messageId: snapshot.messageId } }
          : { id: null, event: 'workflow_error', data: { runId, messageId: snapshot.messageId, stopped: status === 'STOPPED' } }
      entry.state = { ...applyEvent(entry.state, event, now()), lastEventId: Math.max(entry.state.lastEventId, snapshot.eventCount) }
      emit(runId, event, entry)
      finished(entry)
    }
  }

  /** The stream does not know the run (API restarted, run long gone): ask /state once. */
  async function settleUnknown(entry: RunEntry): Promise<void> {
    await pollRun(entry.runId)
    const current = runs.get(entry.runId)
    if (current && !isTerminal(current.state.status)) lose(current)
  }

  /** The server no longer knows the run: report it as ended so the view reloads the message. */
  function lose(entry: RunEntry): void {
    const event: RunEvent = { id: null, event: 'workflow_error', data: { runId: entry.runId, lost: true, message: '' } }
    entry.state = applyEvent(entry.state, event, now())
    emit(entry.runId, event, entry)
    finished(entry)
  }

  // ---- public API ---------------------------------------------------------------------------

  /** Follow a run (no-op when already followed). */
  function track(runId: string, opts: TrackOptions = {}): void {
    const known = runs.get(runId)
    if (known) {
      if (known.sessionId === null && opts.sessionId != null) known.sessionId = opts.sessionId
      return
    }
    const state = { ...emptyRunState(runId, opts.startedAt ?? null), lastEventId: opts.lastEventId ?? 0 }
    runs.set(runId, { runId, sessionId: opts.sessionId ?? null, state, polled: null, reconnecting: false })
    scheduleSync()
  }

  function entry(runId: string | null | undefined): RunEntry | undefined {
    return runId ? runs.get(runId) : undefined
  }

  function getState(runId: string | null | undefined): RunState | null {
    const e = entry(runId)
    return e ? (e.polled ?? e.state) : null
  }

  function runOfSession(sessionId: number): RunEntry | undefined {
    let found: RunEntry | undefined
    for (const e of runs.values()) {
      if (e.sessionId === sessionId && (!found || !isTerminal(e.state.status))) found = e
    }
    return found
  }

  function getPendingAsk(runId: string | null | undefined): PendingAsk | null {
    return getState(runId)?.pendingAsk ?? null
  }

  async function submitClarify(runId: string, clarifyId: string, answer: string): Promise<void> {
    await resumeRun(runId, clarifyId, answer)
    const e = runs.get(runId)
    if (e && e.state.pendingAsk?.clarifyId === clarifyId) e.state = { ...e.state, pendingAsk: null }
    if (e?.polled) e.polled = { ...e.polled, pendingAsk: null }
  }

  function dispose(): void {
    disposed = true
    closeStream()
    stopPolling()
    for (const t of timers) clearTimeout(t)
    timers.clear()
    listeners.clear()
  }

  return {
    runs,
    connection,
    track,
    getState,
    getPendingAsk,
    isReconnecting: (runId: string | null | undefined) => Boolean(entry(runId)?.reconnecting),
    /** A live run of the session is followed by this tab (sidebar spinner). */
    isRunning: (sessionId: number) => {
      const e = runOfSession(sessionId)
      return Boolean(e && !isTerminal(e.state.status))
    },
    /** What the pool knows of the session: undefined when it follows none of its runs. */
    sessionRun: runOfSession,
    waitingForInput: (sessionId: number) => {
      const e = runOfSession(sessionId)
      return Boolean(e && !isTerminal(e.state.status) && (e.polled ?? e.state).pendingAsk)
    },
    liveRunIds: liveIds,
    submitClarify,
    stop: (runId: string) => stopRun(runId),
    onEvent(listener: RunListener): () => void {
      listeners.add(listener)
      return () => listeners.delete(listener)
    },
    dispose,
  }
}

export type RunPool = ReturnType<typeof createRunPool>

let pool: RunPool | null = null

/** The tab's one run pool (created on first use). */
export function useGlobalRuns(): RunPool {
  pool ??= createRunPool()
  return pool
}

/** Replace the tab's pool (tests). */
export function setGlobalRuns(next: RunPool | null): void {
  pool?.dispose()
  pool = next
}
