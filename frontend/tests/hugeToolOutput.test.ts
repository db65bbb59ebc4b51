// Huge agent output outside the answer stays cheap to show: a tool call's arguments and result
// are built when it is opened, a JSON tree shows the first entries of a long list (more on
// request), and a long text its first lines and characters ("Show all").
import { mount } from '@vue/test-utils'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import JsonNode from '@/components/common/JsonNode.vue'
import JsonView from '@/components/common/JsonView.vue'
import ToolCallItem from '@/components/agent-thinking/ToolCallItem.vue'
import { i18n, setLocale } from '@/i18n'
import { clampLines, previewArgs } from '@/lib/display/json'
import type { ToolCall } from '@/lib/run/runState'

// Some tests here switch the page to Chinese; the next test, or the next file in this worker
// (isolate: false), starts from the page's English again.
afterEach(() => setLocale('en'))

const rows = (n: number) => Array.from({ length: n }, (_, i) => ({ row: i }))

describe('clampLines', () => {
  it('cuts a text of one huge line at its first characters', () => {
    const c = clampLines('z'.repeat(2_000_000), 30, 10_000)
    expect(c.shown).toHaveLength(10_000)
    expect(c).toMatchObject({ clamped: true, total: 1, chars: 2_000_000, byChars: true })
    expect(clampLines('short', 30, 10_000)).toMatchObject({ shown: 'short', clamped: false, byChars: false })
  })

  it('cuts by lines first, then by characters', () => {
    const text = Array.from({ length: 50 }, () => 'y'.repeat(1000)).join('\n')
    const c = clampLines(text, 30, 10_000)
    expect(c.shown.length).toBeLessThanOrEqual(10_000)
    expect(c).toMatchObject({ clamped: true, total: 50, byChars: true })
    expect(clampLines(text, 3, 10_000)).toMatchObject({ clamped: true, byChars: false })
  })
})

describe('previewArgs', () => {
  it('previews a 2 MB text without reading all of it', () => {
    const line = previewArgs('a b '.repeat(500_000))
    expect(line).toHaveLength(80)
  })
})

describe('huge tool output', () => {
  beforeEach(() => setLocale('en'))

  it('builds a tool call\'s arguments and result only once it is opened', async () => {
    const call: ToolCall = {
      index: 0, toolCallId: 'a', name: 'fetch_rows', args: '', input: { rows: rows(10_000) }, result: JSON.stringify(rows(10_000)),
      durationMs: 5, done: true,
    }
    const w = mount(ToolCallItem, { props: { call }, global: { plugins: [i18n] } })
    expect(w.find('[data-testid="tool-args"]').exists()).toBe(false)
    expect(w.find('summary').text()).toContain('rows: [10000]')
    const details = w.get('details').element as HTMLDetailsElement
    details.open = true
    await w.get('details').trigger('toggle')
    expect(w.find('[data-testid="tool-args"]').exists()).toBe(true)
    expect(w.find('[data-testid="tool-result"]').exists()).toBe(true)
  })

  it('shows the first hundred entries of a long list, and more on request', async () => {
    const w = mount(JsonNode, { props: { value: rows(10_000), depth: 1 }, global: { plugins: [i18n] } })
    const top = () => w.get('ul.json-children').element.querySelectorAll(':scope > li:not(:has([data-testid="json-more"]))')
    expect(top()).toHaveLength(100)
    const more = w.get('[data-testid="json-more"]')
    expect(more.text()).toBe('Show 1000 more (9900 not shown)')
    await more.trigger('click')
    expect(top()).toHaveLength(1100)
  })

  it('shows the start of a huge string value, and all of it on request', async () => {
    const w = mount(JsonNode, { props: { value: { text: 'q'.repeat(100_000) }, depth: 0 }, global: { plugins: [i18n] } })
    expect(w.get('.json-string').text().length).toBeLessThan(11_000)
    await w.get('[data-testid="json-more"]').trigger('click')
    expect(w.get('.json-string').text().length).toBeGreaterThan(100_000)
  })

  it('shows the start of a text result of one huge line, and all of it on request', async () => {
    setLocale('zh')
    const w = mount(JsonView, { props: { value: 'z'.repeat(2_000_000) }, global: { plugins: [i18n] } })
    expect(w.get('pre').text()).toHaveLength(10_000)
    const all = w.get('button.show-more')
    expect(all.text()).toContain('2000000')
    await all.trigger('click')
    expect(w.get('pre').text()).toHaveLength(2_000_000)
  })
})

describe('a run of thousands of tool calls', () => {
  it('shows the latest hundred calls of a step, and earlier ones on request', async () => {
    const { applyNodeStream, emptyRunState } = await import('@/lib/run/runState')
    const RunSteps = (await import('@/components/agent-thinking/RunSteps.vue')).default
    setLocale('en')
    let state = emptyRunState('r1')
    for (let i = 0; i < 2000; i++) {
      state = applyNodeStream(state, { kind: 'tool_call', toolName: 'skills_list', content: '{}', meta: { toolCallId: `c${i}`, args: { page: i } } })
      state = applyNodeStream(state, { kind: 'tool_result', toolName: 'skills_list', content: `page ${i}`, meta: { toolCallId: `c${i}` } })
    }
    const w = mount(RunSteps, { props: { state }, global: { plugins: [i18n] } })
    const calls = () => w.findAll('[data-testid="tool-call"]')
    expect(calls()).toHaveLength(100)
    expect(calls()[99].text()).toContain('page: 1999')
    const earlier = w.get('[data-testid="earlier-tools"]')
    expect(earlier.text()).toBe('Show 500 earlier tool calls (1900 not shown)')
    await earlier.trigger('click')
    expect(calls()).toHaveLength(600)
    expect(calls()[0].text()).toContain('page: 1400')
  })
})

describe('earlier tool calls, one left', () => {
  it('says "call" for one', async () => {
    const { applyNodeStream, emptyRunState } = await import('@/lib/run/runState')
    const RunSteps = (await import('@/components/agent-thinking/RunSteps.vue')).default
    setLocale('en')
    let state = emptyRunState('r1')
    for (let i = 0; i < 101; i++) state = applyNodeStream(state, { kind: 'tool_call', toolName: 't', content: '{}', meta: { toolCallId: `c${i}` } })
    const w = mount(RunSteps, { props: { state }, global: { plugins: [i18n] } })
    expect(w.get('[data-testid="earlier-tools"]').text()).toBe('Show 1 earlier tool call (1 not shown)')
  })
})
