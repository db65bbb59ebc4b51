import { describe, expect, it } from 'vitest'
import { buildReplayState, buildSnapshotState, replayLogs } from '@/lib/run/replay'
import { applyEvent, emptyRunState, type RunEvent } from '@/lib/run/runState'
import { log, message } from './fixtures'

const logs = [
  log(1, 'thinking', 'First I plan. '),
  log(2, 'status', '(◔_◔) analyzing...'),
  log(3, 'tool_call', '{"path":"a"}', { toolName: 'read_file' }),
  log(4, 'tool_result', 'file body', { toolName: 'read_file' }),
  log(5, 'todo_update', JSON.stringify([{ id: 'a', content: 'read', status: 'completed' }])),
  log(6, 'clarify_request', '', { meta: { clarifyId: 'c', question: 'Go?', choices: ['yes'] } }),
  log(7, 'clarify_answered', '', { meta: { clarifyId: 'c', answer: 'yes' } }),
  log(8, 'thinking', 'Done.'),
]

describe('replay', () => {
  it('rebuilds the same state as the live events did', () => {
    const live = logs.reduce(
      (s, l, i) => applyEvent(s, { id: i + 1, event: 'node_stream', data: { runId: 'r', kind: l.kind, content: l.content, toolName: l.toolName, meta: l.meta } } as RunEvent),
      emptyRunState('r'),
    )
    const replayed = replayLogs(logs, emptyRunState('r'))
    const pick = (s: typeof live) => [s.thinking, s.statusLine, s.toolHistory, s.todos, s.pendingClarify, s.clarifications]
    expect(pick(replayed)).toEqual(pick(live))
  })

  it('orders logs by seq', () => {
    const s = replayLogs([log(2, 'thinking', 'b'), log(1, 'thinking', 'a')])
    expect(s.thinking).toBe('ab')
  })

  it('takes answer, status, times and error from a finished message', () => {
    const m = message(2, {
      role: 'ASSISTANT', status: 'SUCCESS', content: 'The answer', runId: 'r', logs,
      createdAt: '2025-01-01T00:00:00Z', completedAt: '2025-01-01T00:00:12Z',
    })
    const s = buildReplayState(m)
    expect(s.status).toBe('SUCCESS')
    expect(s.answer).toBe('The answer')
    expect(s.toolCount).toBe(1)
    expect(s.pendingClarify).toBeNull()
    expect(s.statusLine).toBe('')
    expect((s.endedAt! - s.startedAt!) / 1000).toBe(12)
  })

  it('shows the error of a FAILED message', () => {
    const s = buildReplayState(message(3, { role: 'ASSISTANT', status: 'FAILED', error: 'HTTP 400', content: '' }))
    expect([s.status, s.error]).toEqual(['FAILED', 'HTTP 400'])
  })

  it('keeps an INTERRUPTED message ended, with its text and error', () => {
    const s = buildReplayState(message(3, { role: 'ASSISTANT', status: 'INTERRUPTED', error: 'restarted', content: 'so far' }))
    expect([s.status, s.error, s.answer]).toEqual(['INTERRUPTED', 'restarted', 'so far'])
  })

  it('leaves a RUNNING message running with its pending clarify', () => {
    const s = buildReplayState(message(3, { role: 'ASSISTANT', status: 'RUNNING', logs: logs.slice(0, 6) }))
    expect(s.status).toBe('RUNNING')
    expect(s.pendingClarify?.clarifyId).toBe('c')
  })

  it('builds the polling snapshot with the server pending clarify', () => {
    const s = buildSnapshotState({
      runId: 'r', sessionId: 1, messageId: 3, status: 'RUNNING', eventCount: 4, finalText: null, error: null, logs: logs.slice(0, 4),
      pendingClarify: { clarifyId: 'z', question: 'Q', choices: [] },
    })
    expect(s.pendingClarify).toEqual({ clarifyId: 'z', question: 'Q', choices: [] })
    expect(s.toolHistory[0].result).toBe('file body')
  })
})
