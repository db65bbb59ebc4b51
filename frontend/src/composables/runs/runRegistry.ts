// The runs a tab follows and the reducer that folds their events: one entry per run with its
// state from stream events (exact, deduplicated by id) and, while the stream is down, the last
// /state snapshot. Listeners hear every applied event; a finished run is dropped after a while.
import { reactive } from 'vue'
import type { RunSnapshot } from '@/api/schema'
import { buildSnapshotState, runStatus } from '@/lib/run/replay'
import { applyEvent, emptyRunState, hideAnswered, isTerminal, TERMINAL_EVENTS, type RunEvent, type RunState } from '@/lib/run/runState'
import { createTimers } from './timers'

export interface RunEntry {
  runId: string
  sessionId: number | null
  state: RunState // folded from stream events (exact, deduplicated by id)
  polled: RunState | null // the /state snapshot shown while the stream is down
  reconnecting: boolean
}

export type RunListener = (runId: string, event: RunEvent, entry: RunEntry) => void

export interface TrackOptions {
  sessionId?: number | null
  lastEventId?: number
  startedAt?: number | null
}

export interface RunRegistryOptions {
  now: () => number
  cleanupMs: number
  /** The set of live runs may have changed (a run joined or ended). */
  onLiveChange: () => void
}

export function createRunRegistry(o: RunRegistryOptions) {
  const runs = reactive(new Map<string, RunEntry>())
  const listeners = new Set<RunListener>()
  const timers = createTimers()

  function liveIds(): string[] {
    return [...runs.values()].filter((e) => !isTerminal(e.state.status)).map((e) => e.runId).sort()
  }

  function emit(entry: RunEntry, event: RunEvent): void {
    for (const listener of [...listeners]) {
      try {
        listener(entry.runId, event, entry)
      } catch (err) {
        console.error('run listener failed', err)
      }
    }
  }

  function finished(entry: RunEntry): void {
    entry.polled = null
    entry.reconnecting = false
    const runId = entry.runId
    timers.later(() => {
      const current = runs.get(runId)
      if (current && isTerminal(current.state.status)) runs.delete(runId)
    }, o.cleanupMs)
    o.onLiveChange()
  }

  /** Fold one event into its run and tell the listeners (ignored when seen or after the end). */
  function apply(entry: RunEntry, event: RunEvent): void {
    if (event.id !== null && event.id <= entry.state.lastEventId) return
    if (isTerminal(entry.state.status)) return
    entry.state = applyEvent(entry.state, event, o.now())
    entry.polled = null
    emit(entry, event)
    if (TERMINAL_EVENTS.has(event.event)) finished(entry)
  }

  /** A stream event: routed by its data.runId; null when no followed run has that id. */
  function receive(event: RunEvent): RunEntry | null {
    const runId = typeof event.data.runId === 'string' ? event.data.runId : null
    const entry = runId ? runs.get(runId) : undefined
    if (!entry) return null
    if (event.event !== 'run_unknown') apply(entry, event)
    return entry
  }

  /** A /state snapshot: shown while the stream is down; a finished run ends here. */
  function applySnapshot(runId: string, snapshot: RunSnapshot): void {
    const entry = runs.get(runId)
    if (!entry || isTerminal(entry.state.status)) return
    const polled = buildSnapshotState(snapshot, entry.state.startedAt)
    entry.polled = { ...polled, answer: entry.state.answer || polled.answer }
    const status = runStatus(snapshot.status)
    if (!isTerminal(status)) return
    const base = { runId, messageId: snapshot.messageId }
    const event: RunEvent =
      status === 'SUCCESS'
        ? { id: null, event: 'workflow_complete', data: { ...base, finalText: snapshot.finalText ?? entry.state.answer } }
        : { id: null, event: 'workflow_error', data: { ...base, message: snapshot.error ?? '', stopped: status === 'STOPPED', interrupted: status === 'INTERRUPTED' } }
    entry.state = { ...entry.state, lastEventId: Math.max(entry.state.lastEventId, snapshot.eventCount) }
    apply(entry, event)
  }

  /** The server no longer knows the run: report it as ended so the view reloads the message. */
  function lose(runId: string): void {
    const entry = runs.get(runId)
    if (entry) apply(entry, { id: null, event: 'workflow_error', data: { runId, messageId: entry.state.messageId ?? 0, lost: true, message: '' } })
  }

  /** Follow a run (no-op when already followed). */
  function track(runId: string, opts: TrackOptions = {}): void {
    const known = runs.get(runId)
    if (known) {
      if (known.sessionId === null && opts.sessionId != null) known.sessionId = opts.sessionId
      return
    }
    const state = { ...emptyRunState(runId, opts.startedAt ?? null), lastEventId: opts.lastEventId ?? 0 }
    runs.set(runId, { runId, sessionId: opts.sessionId ?? null, state, polled: null, reconnecting: false })
    o.onLiveChange()
  }

  function setReconnecting(runIds: string[], value: boolean): void {
    for (const id of runIds) {
      const e = runs.get(id)
      if (e) e.reconnecting = value
    }
  }

  /** The clarify question was answered: hide it before the stream says so. */
  function clarifyAnswered(runId: string, clarifyId: string): void {
    const e = runs.get(runId)
    if (e) e.state = hideAnswered(e.state, clarifyId)
    if (e?.polled) e.polled = { ...e.polled, pendingClarify: null }
  }

  function entry(runId: string | null | undefined): RunEntry | undefined {
    return runId ? runs.get(runId) : undefined
  }

  /** What the tab shows of a run: the snapshot while polling, else the streamed state. */
  function getState(runId: string | null | undefined): RunState | null {
    const e = entry(runId)
    return e ? (e.polled ?? e.state) : null
  }

  /** The session's live run if any, else its last finished one still kept. */
  function runOfSession(sessionId: number): RunEntry | undefined {
    let found: RunEntry | undefined
    for (const e of runs.values()) {
      if (e.sessionId === sessionId && (!found || !isTerminal(e.state.status))) found = e
    }
    return found
  }

  function dispose(): void {
    timers.clear()
    listeners.clear()
  }

  return {
    runs,
    liveIds,
    track,
    receive,
    applySnapshot,
    lose,
    setReconnecting,
    clarifyAnswered,
    entry,
    getState,
    runOfSession,
    onEvent(listener: RunListener): () => void {
      listeners.add(listener)
      return () => listeners.delete(listener)
    },
    dispose,
  }
}

export type RunRegistry = ReturnType<typeof createRunRegistry>
