// The transport of the run pool: ONE fetch-based SSE connection for all live runs of the tab
// (GET /api/chat/stream?runs=a,b&lastEventIds=3,0), reopened when a new run joins, resumed after
// the last event id of each run. A lost connection is retried with back-off; when the back-off
// is spent the stream pauses and tells its owner to poll instead (see runPolling.ts). A
// connection that goes silent (the server pings every 15 s, so a dead network, not a quiet
// agent) counts as lost too: a dropped Wi-Fi or a laptop's sleep ends no fetch by itself.
import { ApiError } from '@/api/http'
import { runsApi } from '@/api/runs'
import type { RunEvent } from '@/lib/run/runState'
import { eventNumber, SseParser } from '@/lib/run/sse'
import { createTimers, type Timer } from './timers'

export type FetchFn = (url: string, init?: RequestInit) => Promise<Response>

export interface StreamTarget {
  runId: string
  lastEventId: number
}

export interface RunStreamOptions {
  fetch: FetchFn
  backoffMs: number[]
  /** No byte for this long (not even the server's ping) and the connection counts as lost. */
  silenceMs?: number
  /** The live runs to follow, with the last event id seen of each. */
  targets: () => StreamTarget[]
  onEvent: (event: RunEvent) => void
  onConnected: (runIds: string[]) => void
  /** The connection ended unexpectedly (HTTP status, 0 for a network error); a retry follows. */
  onLost: (status: number) => void
  /** The back-off is spent: the stream pauses until resume(). */
  onGiveUp: () => void
  /** Where the connection state is shown (a reactive object of the owner). */
  status?: { connected: boolean; opens: number }
}

/** Twice and a half the server's ping interval (runs/streaming.py PING_S = 15 s). */
export const SILENCE_MS = 40_000

export function createRunStream(o: RunStreamOptions) {
  const silenceMs = o.silenceMs ?? SILENCE_MS
  const timers = createTimers()
  const state = o.status ?? { connected: false, opens: 0 }
  let controller: AbortController | null = null
  let connectedIds = new Set<string>()
  let failures = 0
  let retryTimer: Timer | null = null
  let silenceTimer: Timer | null = null
  let paused = false
  let disposed = false

  function close(): void {
    silenceTimer = timers.cancel(silenceTimer)
    controller?.abort()
    controller = null
    connectedIds = new Set()
    state.connected = false
  }

  /** Open, reopen or close the connection so that it carries exactly the live runs. */
  function sync(): void {
    if (disposed) return
    const targets = o.targets()
    if (!targets.length) {
      close()
      retryTimer = timers.cancel(retryTimer)
      failures = 0
      paused = false
      return
    }
    if (paused || retryTimer) return
    if (controller && targets.every((t) => connectedIds.has(t.runId))) return
    void open(targets)
  }

  async function open(targets: StreamTarget[]): Promise<void> {
    close()
    const ctl = new AbortController()
    controller = ctl
    connectedIds = new Set(targets.map((t) => t.runId))
    state.opens++
    let status = 0
    let received = 0
    let silent = false
    const listen = () => {
      timers.cancel(silenceTimer)
      silenceTimer = timers.later(() => {
        silent = true
        ctl.abort()
      }, silenceMs)
    }
    listen() // a request that hangs with a dead network counts as lost too
    try {
      const response = await o.fetch(runsApi.streamUrl(targets), {
        headers: { Accept: 'text/event-stream' },
        cache: 'no-store',
        signal: ctl.signal,
      })
      status = response.status
      if (!response.ok || !response.body) throw new ApiError(`stream answered ${status}`, status, 'stream')
      state.connected = true
      o.onConnected([...connectedIds])
      received = await read(response.body, ctl.signal, listen)
    } catch {
      /* handled below: aborted, network error or an HTTP error */
    }
    if ((ctl.signal.aborted && !silent) || controller !== ctl) return
    close()
    if (status >= 200 && status < 300 && received > 0) failures = 0
    lost(silent ? 0 : status)
  }

  async function read(body: ReadableStream<Uint8Array>, signal: AbortSignal, heard: () => void): Promise<number> {
    const reader = body.getReader()
    const decoder = new TextDecoder()
    const parser = new SseParser()
    let count = 0
    signal.addEventListener('abort', () => void reader.cancel().catch(() => undefined))
    for (;;) {
      const { done, value } = await reader.read()
      if (done || signal.aborted) break
      heard()
      for (const message of parser.push(decoder.decode(value, { stream: true }))) {
        let data: Record<string, unknown>
        try {
          data = JSON.parse(message.data)
        } catch {
          continue
        }
        count++
        // The wire contract (RunStreamEvent); an unknown event name falls through the reducer.
        o.onEvent({ id: eventNumber(message.id), event: message.event, data } as RunEvent)
      }
    }
    return count
  }

  function lost(status: number): void {
    if (!o.targets().length) return
    o.onLost(status)
    failures++
    if (failures <= o.backoffMs.length) {
      retryTimer = timers.later(() => {
        retryTimer = null
        sync()
      }, o.backoffMs[failures - 1])
    } else {
      paused = true
      o.onGiveUp()
    }
  }

  /** Try the stream again after a pause; one more failure gives up again at once. */
  function resume(): void {
    paused = false
    failures = o.backoffMs.length
    sync()
  }

  /** Open the connection again at once (the network came back): a retry waiting out its
   * back-off goes now, a connection that may have died with the network is replaced. */
  function restart(): void {
    retryTimer = timers.cancel(retryTimer)
    paused = false
    failures = 0
    close()
    sync()
  }

  function dispose(): void {
    disposed = true
    close()
    timers.clear()
  }

  return { state, sync, resume, restart, dispose }
}

export type RunStream = ReturnType<typeof createRunStream>
