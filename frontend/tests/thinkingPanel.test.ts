import { mount } from '@vue/test-utils'
import { beforeEach, describe, expect, it } from 'vitest'
import AgentThinkingPanel from '@/components/agent-thinking/AgentThinkingPanel.vue'
import ClarifyPanel from '@/components/agent-thinking/ClarifyPanel.vue'
import { i18n, setLocale } from '@/i18n'
import { applyNodeStream, emptyRunState, type NodeItem, type RunState } from '@/lib/run/runState'

function done(items: NodeItem[], startedAt = 0, endedAt = 12_000): RunState {
  const s = items.reduce<RunState>((acc, item) => applyNodeStream(acc, item), emptyRunState('r1', startedAt))
  return { ...s, status: 'SUCCESS', endedAt }
}
const panel = (state: RunState, startedAt?: number) =>
  mount(AgentThinkingPanel, { props: { state, startedAt }, global: { plugins: [i18n] } })

describe('AgentThinkingPanel', () => {
  beforeEach(() => setLocale('en'))

  it('shows nothing for an answer without thinking, tools or to-dos', () => {
    const w = panel(done([{ kind: 'status', content: '(¬‿¬) pondering...' }]))
    expect(w.find('[data-testid="thinking-panel"]').exists()).toBe(false)
  })

  it('says "1 tool call" and leaves out what did not happen', () => {
    const w = panel(done([{ kind: 'tool_call', toolName: 'todo', content: '{}' }, { kind: 'tool_result', toolName: 'todo', content: 'ok' }]))
    expect(w.get('[data-testid="thinking-summary"]').text()).toBe('Worked for 12 s · 1 tool call')
  })

  it('counts from the message start when the run was joined late (a reload mid-run)', () => {
    const state = done([{ kind: 'thinking', content: 'hm' }], 42_000, 43_000)
    expect(panel(state, 0).get('[data-testid="thinking-summary"]').text()).toBe('Thought for 43 s')
  })

  it('separates the steps once expanded', async () => {
    const w = panel(done([
      { kind: 'thinking', content: 'first' },
      { kind: 'tool_call', toolName: 'a', content: '{}' },
      { kind: 'thinking', content: 'second' },
    ]))
    await w.get('[data-testid="thinking-summary"]').trigger('click')
    expect(w.findAll('[data-testid="run-step"]').map((s) => s.get('[data-testid="thinking-stream"]').text())).toEqual(['first', 'second'])
  })
})

describe('ClarifyPanel', () => {
  it('sends one answer for a double tap, and again once a refused answer is no longer busy', async () => {
    const clarify = { clarifyId: 'k1', question: 'Which colour?', choices: ['red', 'blue'] }
    const w = mount(ClarifyPanel, { props: { clarify, busy: false }, global: { plugins: [i18n] } })
    const red = w.findAll('[data-testid="clarify-choice"]')[0]
    await red.trigger('click')
    await red.trigger('click')
    expect(w.emitted('submit')).toEqual([['red']])
    await w.setProps({ busy: true })
    await w.setProps({ busy: false }) // refused: the person may answer again
    await red.trigger('click')
    expect(w.emitted('submit')).toHaveLength(2)
  })

  it('says the run waits for the person instead of spinning', () => {
    const asked = applyNodeStream(emptyRunState('r1'), { kind: 'tool_call', toolName: 'clarify', content: '{}', meta: { toolCallId: 'c1' } })
    const waiting = applyNodeStream(asked, {
      kind: 'clarify_request', content: '', meta: { clarifyId: 'k1', question: 'Which?', choices: ['a'] },
    })
    const w = panel(waiting)
    expect(w.get('[data-testid="thinking-status"]').text()).toBe('Waiting for your answer')
    expect(w.get('[data-tool="clarify"] .tool-meta').text()).toBe('Waiting for your answer')
  })
})
