// Rebuild a run's state from stored logs: a message of an old session, or the /state snapshot
// a client polls when it lost the stream. Same reducer as live events, so the same rendering.
import type { Log, Message, RunSnapshot } from '@/api/types'
import { applyNodeStream, emptyRunState, isTerminal, type RunState, type RunStatus } from './runState'

export function parseTime(value: string | null | undefined): number | null {
  if (!value) return null
  const t = Date.parse(value)
  return Number.isNaN(t) ? null : t
}

/** Fold logs (ordered by seq) into a run state. */
export function replayLogs(logs: Log[], base: RunState = emptyRunState()): RunState {
  const ordered = [...logs].sort((a, b) => a.seq - b.seq)
  return ordered.reduce((s, log) => applyNodeStream(s, log as unknown as Record<string, unknown>), base)
}

function runStatus(status: string): RunStatus {
  const upper = status.toUpperCase()
  if (upper === 'SUCCESS' || upper === 'COMPLETED' || upper === 'COMPLETE') return 'SUCCESS'
  if (upper === 'FAILED' || upper === 'ERROR') return 'FAILED'
  if (upper === 'STOPPED' || upper === 'CANCELLED') return 'STOPPED'
  return 'RUNNING'
}

/** The thinking panel of a stored assistant message. */
export function buildReplayState(message: Message): RunState {
  const firstLog = message.logs?.length ? parseTime(message.logs[0].createdAt) : null
  const base = emptyRunState(message.runId, parseTime(message.createdAt) ?? firstLog)
  let s = replayLogs(message.logs ?? [], { ...base, messageId: message.id })
  const status = runStatus(message.status)
  if (isTerminal(status)) {
    const lastLog = message.logs?.length ? parseTime(message.logs[message.logs.length - 1].createdAt) : null
    s = {
      ...s,
      status,
      answer: message.content || s.answer,
      error: message.error,
      usage: message.usage,
      currentTool: null,
      pendingAsk: null,
      statusLine: '',
      endedAt: parseTime(message.completedAt) ?? lastLog,
    }
  } else if (message.content) {
    s = { ...s, answer: message.content }
  }
  return s
}

/** The state shown while polling /state: snapshot logs and pending clarify. */
export function buildSnapshotState(snapshot: RunSnapshot, startedAt: number | null = null): RunState {
  const base = { ...emptyRunState(snapshot.runId, startedAt), messageId: snapshot.messageId }
  let s = replayLogs(snapshot.logs ?? [], base)
  const p = snapshot.pendingClarify
  s = { ...s, pendingAsk: p ? { clarifyId: p.clarifyId, question: p.question, choices: p.choices ?? [] } : null }
  const status = runStatus(snapshot.status)
  return isTerminal(status) ? { ...s, status, pendingAsk: null, currentTool: null } : s
}

export function snapshotStatus(snapshot: RunSnapshot): RunStatus {
  return runStatus(snapshot.status)
}
