// The app-wide pool of live runs (spec §5.7): every live run keeps being followed while the
// person switches sessions. It wires three pieces, one concern each: the run registry and its
// reducer (runs/runRegistry.ts), the one multiplexed stream with back-off (runs/runStream.ts)
// and the /state polling fallback (runs/runPolling.ts); plus the run commands (stop, clarify).
import { reactive } from 'vue'
import { authFetch } from '@/api/http'
import { runsApi } from '@/api/runs'
import type { PendingClarify, RunSnapshot } from '@/api/schema'
import { isTerminal } from '@/lib/run/runState'
import { createRunPolling } from './runs/runPolling'
import { createRunRegistry } from './runs/runRegistry'
import { createRunStream, type FetchFn } from './runs/runStream'

export type { RunEntry, RunListener, TrackOptions } from './runs/runRegistry'

export interface RunPoolOptions {
  fetch?: FetchFn
  getState?: (runId: string) => Promise<RunSnapshot>
  stopRun?: (runId: string) => Promise<unknown>
  resumeRun?: (runId: string, clarifyId: string, answer: string) => Promise<unknown>
  backoffMs?: number[]
  pollMs?: number
  streamRetryMs?: number
  cleanupMs?: number
  now?: () => number
}

const DEFAULTS = {
  backoffMs: [500, 1000, 2000, 4000],
  pollMs: 2000,
  streamRetryMs: 15_000,
  cleanupMs: 5 * 60_000,
}

export function createRunPool(options: RunPoolOptions = {}) {
  const now = options.now ?? Date.now
  const stopRun = options.stopRun ?? runsApi.stop
  const resumeRun = options.resumeRun ?? runsApi.resume
  let syncQueued = false
  let disposed = false

  const connection = reactive({ connected: false, polling: false, opens: 0 })
  const registry = createRunRegistry({
    now,
    cleanupMs: options.cleanupMs ?? DEFAULTS.cleanupMs,
    onLiveChange: scheduleSync,
  })
  const stream = createRunStream({
    fetch: options.fetch ?? authFetch,
    backoffMs: options.backoffMs ?? DEFAULTS.backoffMs,
    targets: () => registry.liveIds().map((runId) => ({ runId, lastEventId: registry.entry(runId)!.state.lastEventId })),
    onEvent: (event) => {
      const entry = registry.receive(event)
      if (entry && event.event === 'run_unknown') void settleUnknown(entry.runId)
    },
    onConnected: (runIds) => registry.setReconnecting(runIds, false),
    onLost: (status) => {
      registry.setReconnecting(registry.liveIds(), true)
      if (status >= 400 && status < 500) void polling.pollOnce() // a run the server no longer knows?
    },
    onGiveUp: () => polling.start(),
    status: connection,
  })
  const polling = createRunPolling({
    pollMs: options.pollMs ?? DEFAULTS.pollMs,
    streamRetryMs: options.streamRetryMs ?? DEFAULTS.streamRetryMs,
    now,
    liveIds: registry.liveIds,
    fetchSnapshot: options.getState ?? runsApi.state,
    onSnapshot: registry.applySnapshot,
    onGone: registry.lose,
    onRetryStream: () => stream.resume(),
    status: connection,
  })

  /** Coalesce the changes of one tick into one look at the connection. */
  function scheduleSync(): void {
    if (syncQueued || disposed) return
    syncQueued = true
    queueMicrotask(() => {
      syncQueued = false
      if (disposed) return
      if (!registry.liveIds().length) polling.stop()
      stream.sync()
    })
  }

  // The network is back (Wi-Fi again, out of a tunnel): follow the live runs again now, not
  // after the back-off or the polling round, on a new connection (the old one may have died
  // with the network without saying so).
  function onOnline(): void {
    if (disposed || !registry.liveIds().length) return
    polling.stop()
    stream.restart()
  }
  if (typeof window !== 'undefined') window.addEventListener('online', onOnline)

  /** The stream does not know the run (API restarted, run long gone): ask /state once. */
  async function settleUnknown(runId: string): Promise<void> {
    await polling.pollRun(runId)
    const state = registry.entry(runId)?.state
    if (state && !isTerminal(state.status)) registry.lose(runId)
  }

  function liveRun(sessionId: number) {
    const e = registry.runOfSession(sessionId)
    return e && !isTerminal(e.state.status) ? e : undefined
  }

  return {
    runs: registry.runs,
    connection,
    track: registry.track,
    getState: registry.getState,
    getPendingClarify: (runId: string | null | undefined): PendingClarify | null =>
      registry.getState(runId)?.pendingClarify ?? null,
    isReconnecting: (runId: string | null | undefined) => Boolean(registry.entry(runId)?.reconnecting),
    /** A live run of the session is followed by this tab (sidebar spinner). */
    isRunning: (sessionId: number) => Boolean(liveRun(sessionId)),
    /** What the pool knows of the session: undefined when it follows none of its runs. */
    sessionRun: registry.runOfSession,
    waitingForInput: (sessionId: number) => Boolean(registry.getState(liveRun(sessionId)?.runId)?.pendingClarify),
    liveRunIds: registry.liveIds,
    async submitClarify(runId: string, clarifyId: string, answer: string): Promise<void> {
      await resumeRun(runId, clarifyId, answer)
      registry.clarifyAnswered(runId, clarifyId)
    },
    stop: (runId: string) => stopRun(runId),
    onEvent: registry.onEvent,
    dispose(): void {
      disposed = true
      if (typeof window !== 'undefined') window.removeEventListener('online', onOnline)
      stream.dispose()
      polling.dispose()
      registry.dispose()
    },
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
