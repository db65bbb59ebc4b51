import { describe, expect, it } from 'vitest'
import type { RunEvent } from '@/lib/run/runState'
import { applyEvent, durationSeconds, emptyRunState, isTerminal, parseTodos, type RunState } from '@/lib/run/runState'

let nextId = 1
function ns(kind: string, content = '', extra: Record<string, unknown> = {}): RunEvent {
  return { id: nextId++, event: 'node_stream', data: { runId: 'r1', nodeId: 'agent', kind, content, ...extra } } as RunEvent
}
function fold(events: RunEvent[], start: RunState = emptyRunState('r1')): RunState {
  return events.reduce((s, e, i) => applyEvent(s, e, 1000 + i * 1000), start)
}

describe('applyEvent', () => {
  it('accumulates thinking and answer, strips the status decoration', () => {
    nextId = 1
    const s = fold([ns('thinking', 'Let me '), ns('thinking', 'think.'), ns('status', '(¬‿¬) pondering...'), ns('answer_delta', 'Hel'), ns('answer_delta', 'lo')])
    expect(s.thinking).toBe('Let me think.')
    expect(s.statusLine).toBe('pondering...')
    expect(s.answer).toBe('Hello')
    expect(s.lastEventId).toBe(5)
    expect(s.startedAt).toBe(1000)
  })

  it('tracks the current tool, its history and results in order', () => {
    nextId = 1
    let s = fold([ns('tool_call', '{"q":"x"}', { toolName: 'web_search' })])
    expect(s.currentTool?.name).toBe('web_search')
    expect(s.toolCount).toBe(1)
    s = fold([ns('tool_result', 'found', { toolName: 'web_search' }), ns('tool_call', 'a.txt', { toolName: 'read_file' })], s)
    expect(s.toolHistory.map((t) => [t.name, t.args, t.result, t.done])).toEqual([
      ['web_search', '{"q":"x"}', 'found', true],
      ['read_file', 'a.txt', null, false],
    ])
    expect(s.currentTool?.name).toBe('read_file')
    s = fold([ns('tool_result', 'content', { toolName: 'read_file' })], s)
    expect(s.currentTool).toBeNull()
    expect(s.toolCount).toBe(2)
  })

  it('keeps the MCP server and tool of a call, and the media its result brought', () => {
    nextId = 1
    const mcp = { server: 'files', tool: 'picture' }
    const media = [{ kind: 'image', name: 'img_1.png', mime: 'image/png', size: 68, data: 'iVBORw0KGgo=' }]
    const s = fold([
      ns('tool_call', '{}', { toolName: 'mcp__files__picture', meta: { toolCallId: 'c1', args: {}, mcp } }),
      ns('tool_result', '{"result":"MEDIA:/x"}', { toolName: 'mcp__files__picture', meta: { toolCallId: 'c1', durationMs: 12, mcp, media } }),
    ])
    expect(s.toolHistory[0]).toMatchObject({ mcp, media, durationMs: 12, done: true })
  })

  it('moves interim text out of the answer to the tool call it precedes', () => {
    nextId = 1
    const s = fold([
      ns('answer_delta', 'Let me '),
      ns('answer_delta', 'check.'),
      ns('interim', 'Let me check.'),
      ns('tool_call', '{}', { toolName: 'skills_list', meta: { toolCallId: 'c1', args: {} } }),
      ns('tool_result', '[]', { toolName: 'skills_list', meta: { toolCallId: 'c1', durationMs: 1250 } }),
      ns('answer_delta', 'Done.'),
    ])
    expect(s.answer).toBe('Done.')
    expect(s.said).toBe('')
    expect(s.toolHistory.map((t) => [t.name, t.said, t.durationMs])).toEqual([['skills_list', 'Let me check.', 1250]])
  })

  it('follows the step and keeps the messages a person steered with', () => {
    nextId = 1
    const s = fold([
      ns('step', '', { meta: { iteration: 1, maxIterations: 30 } }),
      ns('steered', 'Prefer blue.'),
      ns('step', '', { meta: { iteration: 2, maxIterations: 30 } }),
    ])
    expect([s.iteration, s.maxIterations]).toEqual([2, 30])
    expect(s.steers).toEqual(['Prefer blue.'])
  })

  it('pairs results with their calls by toolCallId when two calls of one tool run at once', () => {
    nextId = 1
    const call = (id: string, query: string) =>
      ns('tool_call', query, { toolName: 'web_search', meta: { toolCallId: id, args: { query } } })
    const result = (id: string, text: string, durationMs: number) =>
      ns('tool_result', text, { toolName: 'web_search', meta: { toolCallId: id, durationMs } })
    let s = fold([call('call-1', 'cats'), call('call-2', 'dogs')])
    expect(s.currentTool?.toolCallId).toBe('call-2')
    s = fold([result('call-2', 'about dogs', 40)], s) // the second call answers first
    expect(s.currentTool?.toolCallId).toBe('call-1')
    s = fold([result('call-1', 'about cats', 90)], s)
    expect(s.toolHistory.map((t) => [t.toolCallId, t.input, t.result, t.durationMs, t.done])).toEqual([
      ['call-1', { query: 'cats' }, 'about cats', 90, true],
      ['call-2', { query: 'dogs' }, 'about dogs', 40, true],
    ])
    expect(s.currentTool).toBeNull()
    expect(s.toolCount).toBe(2)
  })

  it('pairs by tool name only for stored logs without a toolCallId', () => {
    nextId = 1
    const s = fold([
      ns('tool_call', 'a', { toolName: 'read_file' }),
      ns('tool_call', 'q', { toolName: 'web_search' }),
      ns('tool_result', 'file', { toolName: 'read_file' }),
    ])
    expect(s.toolHistory.map((t) => [t.name, t.result])).toEqual([
      ['read_file', 'file'],
      ['web_search', null],
    ])
    expect(s.currentTool?.name).toBe('web_search')
  })

  it('keeps a result without a matching call', () => {
    nextId = 1
    const s = fold([ns('tool_result', 'orphan', { toolName: 'x' })])
    expect(s.toolHistory).toHaveLength(1)
    expect(s.toolHistory[0].result).toBe('orphan')
  })

  it('replaces the todo list on each update and ignores broken JSON', () => {
    nextId = 1
    const s = fold([
      ns('todo_update', JSON.stringify([{ id: '1', content: 'plan', status: 'in_progress' }])),
      ns('todo_update', JSON.stringify([{ id: '1', content: 'plan', status: 'completed' }, { id: '2', content: 'write', status: 'pending' }])),
      ns('todo_update', '{not json'),
    ])
    expect(s.todos).toEqual([
      { id: '1', content: 'plan', status: 'completed' },
      { id: '2', content: 'write', status: 'pending' },
    ])
  })

  it('opens and closes a clarify request', () => {
    nextId = 1
    let s = fold([ns('clarify_request', '', { meta: { clarifyId: 'c1', question: 'Which?', choices: ['A', 'B'] } })])
    expect(s.pendingClarify).toEqual({ clarifyId: 'c1', question: 'Which?', choices: ['A', 'B'] })
    s = fold([ns('clarify_answered', '', { meta: { clarifyId: 'c1', answer: 'B' } })], s)
    expect(s.pendingClarify).toBeNull()
    expect(s.clarifications).toEqual([{ clarifyId: 'c1', question: 'Which?', answer: 'B' }])
  })

  it('finishes on workflow_complete with the final text and ignores later events', () => {
    nextId = 1
    let s = fold([ns('answer_delta', 'partial'), ns('tool_call', 'x', { toolName: 't' })])
    s = applyEvent(s, { id: 3, event: 'workflow_complete', data: { runId: 'r1', messageId: 9, finalText: 'Final', usage: { totalTokens: 5 } } }, 9000)
    expect(s.status).toBe('SUCCESS')
    expect(s.answer).toBe('Final')
    expect(s.currentTool).toBeNull()
    expect(s.endedAt).toBe(9000)
    expect(s.usage).toEqual({ totalTokens: 5 })
    const after = applyEvent(s, { id: 4, event: 'node_stream', data: { kind: 'answer_delta', content: 'more' } }, 10000)
    expect(after.answer).toBe('Final')
  })

  it('marks failures and stops', () => {
    const failed = applyEvent(emptyRunState(), { id: 1, event: 'workflow_error', data: { message: 'boom' } } as RunEvent, 5)
    expect([failed.status, failed.error]).toEqual(['FAILED', 'boom'])
    const stopped = applyEvent(emptyRunState(), { id: 1, event: 'workflow_error', data: { message: 'stopped', stopped: true } } as RunEvent, 5)
    expect(stopped.status).toBe('STOPPED')
  })

  it('marks an answer the server restart cut as interrupted, its text kept', () => {
    const streamed = applyEvent(emptyRunState(), { id: 1, event: 'node_stream', data: { kind: 'answer_delta', content: 'so far' } } as RunEvent, 5)
    const cut = applyEvent(streamed, { id: 2, event: 'workflow_error', data: { message: 'restarted', interrupted: true } } as RunEvent, 6)
    expect([cut.status, cut.answer, cut.error]).toEqual(['INTERRUPTED', 'so far', 'restarted'])
    expect(isTerminal(cut.status)).toBe(true)
  })

  it('ignores duplicates: an id at or below lastEventId changes nothing', () => {
    nextId = 1
    const e1 = ns('answer_delta', 'a')
    const e2 = ns('answer_delta', 'b')
    const s = fold([e1, e2, e1, e2])
    expect(s.answer).toBe('ab')
  })

  it('records compaction summaries', () => {
    const s = applyEvent(emptyRunState(), { id: 1, event: 'context_compacted', data: { summary: 'S' } }, 0)
    expect(s.summaries).toEqual(['S'])
  })

  it('keeps the answer when workflow_complete has no finalText', () => {
    nextId = 1
    let s = fold([ns('answer_delta', 'streamed')])
    s = applyEvent(s, { id: null, event: 'workflow_complete', data: {} } as RunEvent, 2)
    expect(s.answer).toBe('streamed')
  })
})

describe('helpers', () => {
  it('parseTodos reads the JSON list and fills defaults', () => {
    expect(parseTodos(JSON.stringify([{ content: 'x' }]))).toEqual([{ id: '1', content: 'x', status: 'pending' }])
    expect(parseTodos('3')).toBeNull()
    expect(parseTodos(null)).toBeNull()
  })

  it('durationSeconds rounds and uses now for running runs', () => {
    expect(durationSeconds({ startedAt: 0, endedAt: 12_400 })).toBe(12)
    expect(durationSeconds({ startedAt: 0, endedAt: null }, 3000)).toBe(3)
    expect(durationSeconds({ startedAt: null, endedAt: null })).toBeNull()
  })
})
