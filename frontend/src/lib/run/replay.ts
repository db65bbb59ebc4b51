// Rebuild a run's state from stored logs: a message of an old session, or the /state snapshot
// a client polls when it lost the stream. Same reducer as live events, so the same rendering.
import type { Log, Message, RunLog, RunSnapshot } from '@/api/schema'
import { applyNodeStream, emptyRunState, isTerminal, type RunState, type RunStatus } from './runState'

export function parseTime(value: string | null | undefined): number | null {
  if (!value) return null
  const t = Date.parse(value)
  return Number.isNaN(t) ? null : t
}

/** Fold logs (ordered by seq) into a run state. */
export function replayLogs(logs: (Log | RunLog)[], base: RunState = emptyRunState()): RunState {
  const ordered = [...logs].sort((a, b) => a.seq - b.seq)
  return ordered.reduce(applyNodeStream, base)
}

/** A message's or snapshot's status as a run status (SENT, SUMMARY… are not runs: RUNNING). */
export function runStatus(status: string): RunStatus {
  return isTerminal(status) ? status : 'RUNNING'
}

/** The thinking panel of a stored assistant message. */
export function buildReplayState(message: Message): RunState {
  const logs = message.logs
  const base = emptyRunState(message.runId, parseTime(message.createdAt) ?? parseTime(logs[0]?.createdAt))
  let s = replayLogs(logs, { ...base, messageId: message.id })
  const status = runStatus(message.status)
  if (isTerminal(status)) {
    s = {
      ...s,
      status,
      answer: message.content || s.answer,
      error: message.error,
      usage: message.usage,
      currentTool: null,
      pendingClarify: null,
      statusLine: '',
      endedAt: parseTime(message.completedAt) ?? parseTime(logs[logs.length - 1]?.createdAt),
    }
  } else if (message.content) {
    s = { ...s, answer: message.content }
  }
  return s
}

/** The state shown while polling /state: snapshot logs and pending clarify. */
export function buildSnapshotState(snapshot: RunSnapshot, startedAt: number | null = null): RunState {
  const base = { ...emptyRunState(snapshot.runId, startedAt), messageId: snapshot.messageId }
  const s = { ...replayLogs(snapshot.logs, base), pendingClarify: snapshot.pendingClarify }
  const status = runStatus(snapshot.status)
  return isTerminal(status) ? { ...s, status, pendingClarify: null, currentTool: null } : s
}
