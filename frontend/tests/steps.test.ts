import { describe, expect, it } from 'vitest'
import { applyNodeStream, emptyRunState, type NodeItem, type RunState } from '@/lib/run/runState'

function fold(items: NodeItem[]): RunState {
  return items.reduce<RunState>((s, item) => applyNodeStream(s, item), emptyRunState('r1'))
}
const think = (content: string) => ({ kind: 'thinking', content }) as NodeItem
const call = (toolName: string, args: unknown, toolCallId?: string) => ({
  kind: 'tool_call', toolName, content: JSON.stringify(args), meta: { toolCallId, args },
}) as NodeItem
const result = (toolName: string, content: string, durationMs?: number, toolCallId?: string) => ({
  kind: 'tool_result', toolName, content, meta: { toolCallId, durationMs },
}) as NodeItem

describe('run steps', () => {
  it('starts a new step when thinking follows a tool call', () => {
    const s = fold([
      think('Plan the '), think('search.'),
      call('web_search', { q: 'cats' }, 'c1'), result('web_search', '["a"]', 420, 'c1'),
      think('Now read it.'),
      call('read_file', { path: 'a.txt' }, 'c2'), call('read_file', { path: 'b.txt' }, 'c3'),
      think('Done.'),
    ])
    expect(s.steps).toEqual([
      { thinking: 'Plan the search.', tools: [0] },
      { thinking: 'Now read it.', tools: [1, 2] },
      { thinking: 'Done.', tools: [] },
    ])
    expect(s.thinking).toBe('Plan the search.Now read it.Done.')
  })

  it('keeps tool calls without thinking in one step', () => {
    const s = fold([call('todo', {}), result('todo', 'ok'), call('skills_list', {}), result('skills_list', '[]')])
    expect(s.steps).toEqual([{ thinking: '', tools: [0, 1] }])
  })

  it('keeps the real arguments and the duration of each call', () => {
    const s = fold([call('web_search', { q: 'cats', limit: 5 }, 'c1'), result('web_search', '{"hits":2}', 1250, 'c1')])
    expect(s.toolHistory[0].input).toEqual({ q: 'cats', limit: 5 })
    expect(s.toolHistory[0].durationMs).toBe(1250)
    expect(s.toolHistory[0].result).toBe('{"hits":2}')
  })

  it('reads stored logs of older runs without meta', () => {
    const s = fold([{ kind: 'tool_call', toolName: 'x', content: 'summary', meta: null }, { kind: 'tool_result', toolName: 'x', content: 'r' }])
    expect(s.toolHistory[0].input).toBeNull()
    expect(s.toolHistory[0].durationMs).toBeNull()
    expect(s.steps).toEqual([{ thinking: '', tools: [0] }])
  })
})
