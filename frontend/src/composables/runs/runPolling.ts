// The polling fallback of the run pool: while the stream is down, GET /runs/{id}/state of every
// live run every pollMs, and after streamRetryMs hand back to the stream for another try.
import { ApiError } from '@/api/http'
import type { RunSnapshot } from '@/api/schema'
import { createTimers, type Timer } from './timers'

export interface RunPollingOptions {
  pollMs: number
  streamRetryMs: number
  now: () => number
  liveIds: () => string[]
  fetchSnapshot: (runId: string) => Promise<RunSnapshot>
  onSnapshot: (runId: string, snapshot: RunSnapshot) => void
  /** The server does not know the run (404). */
  onGone: (runId: string) => void
  /** Time to try the stream again (polling has stopped). */
  onRetryStream: () => void
  /** Where the polling flag is shown (a reactive object of the owner). */
  status?: { polling: boolean }
}

export function createRunPolling(o: RunPollingOptions) {
  const timers = createTimers()
  const state = o.status ?? { polling: false }
  let timer: Timer | null = null
  let startedAt = 0
  let disposed = false

  function start(): void {
    if (state.polling) return
    state.polling = true
    startedAt = o.now()
    void loop()
  }

  function stop(): void {
    state.polling = false
    timer = timers.cancel(timer)
  }

  async function loop(): Promise<void> {
    if (!state.polling || disposed) return
    await pollOnce()
    if (!state.polling || disposed) return
    if (o.now() - startedAt >= o.streamRetryMs && o.liveIds().length) {
      stop()
      o.onRetryStream()
      return
    }
    timer = timers.later(() => void loop(), o.pollMs)
  }

  async function pollOnce(): Promise<void> {
    await Promise.all(o.liveIds().map((id) => pollRun(id)))
  }

  async function pollRun(runId: string): Promise<void> {
    let snapshot: RunSnapshot
    try {
      snapshot = await o.fetchSnapshot(runId)
    } catch (err) {
      if (err instanceof ApiError && err.status === 404) o.onGone(runId)
      return
    }
    if (!disposed) o.onSnapshot(runId, snapshot)
  }

  function dispose(): void {
    disposed = true
    stop()
    timers.clear()
  }

  return { state, start, stop, pollOnce, pollRun, dispose }
}

export type RunPolling = ReturnType<typeof createRunPolling>
