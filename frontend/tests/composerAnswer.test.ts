// While the agent's question waits, the main box answers it: Enter and the primary button send
// the text as the free answer (once, however many times Enter is pressed), the box says so,
// and guiding stays possible through its own button. A dangerous command is no such question.
import { mount } from '@vue/test-utils'
import { NDialogProvider } from 'naive-ui'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { defineComponent, h, nextTick, type Component } from 'vue'
import { i18n, setLocale } from '@/i18n'
import { freeAnswerQuestion } from '@/lib/run/approval'
import { composerIntent } from '@/lib/chat/composerIntent'
import ChatComposer from '@/views/chat/ChatComposer.vue'

// Some tests here switch the page to Chinese; the next test, or the next file in this worker
// (isolate: false), starts from the page's English again.
afterEach(() => setLocale('en'))

const QUESTION = { clarifyId: 'k1', question: 'Which colour?', choices: ['red', 'blue'] }
const APPROVAL = { clarifyId: 'k2', question: 'Allow this command (recursive delete)?\nrm -rf /tmp/x', choices: ['Allow once', 'Allow for this chat', 'Deny'] }

describe('composerIntent', () => {
  it('asks when idle, guides a running agent, answers its waiting question', () => {
    expect(composerIntent(false, false)).toBe('ask')
    expect(composerIntent(true, false)).toBe('guide')
    expect(composerIntent(true, true)).toBe('answer')
    expect(composerIntent(false, true)).toBe('ask') // a finished run asks nothing any more
  })
})

describe('freeAnswerQuestion', () => {
  it('is the waiting question, but not a dangerous command (its answer is one of its buttons)', () => {
    expect(freeAnswerQuestion(QUESTION)).toBe(QUESTION)
    expect(freeAnswerQuestion(APPROVAL)).toBeNull()
    expect(freeAnswerQuestion({ ...QUESTION, approval: { command: 'rm -rf /', description: 'x' } })).toBeNull()
    expect(freeAnswerQuestion(null)).toBeNull()
  })
})

type Props = Record<string, unknown>

function mountComposer(props: Props) {
  const Host = defineComponent({
    props: { extra: { type: Object, default: () => ({}) } },
    setup(p) {
      return () => h(NDialogProvider, null, { default: () => h(ChatComposer as Component, p.extra) })
    },
  })
  const calls: { answer: string[]; steer: string[]; send: string[] } = { answer: [], steer: [], send: [] }
  const pending: ((ok: boolean) => void)[] = []
  const base = {
    running: true, sending: false, disabled: false, hasSession: true, draftKey: 1,
    onAnswer: (text: string, done: (ok: boolean) => void) => (calls.answer.push(text), pending.push(done)),
    onSteer: (text: string, done: (ok: boolean) => void) => (calls.steer.push(text), done(true)),
    onSend: (text: string, done: (ok: boolean) => void) => (calls.send.push(text), done(true)),
  }
  const wrapper = mount(Host, {
    props: { extra: { ...base, ...props } },
    global: { plugins: [i18n], stubs: { ModelSelect: true, SkillSelect: true, ToolsetsNote: true, RouterLink: true } },
    attachTo: document.body,
  })
  const box = () => wrapper.get('textarea[data-testid="composer-input"]')
  const type = async (text: string) => box().setValue(text)
  const enter = (extra: KeyboardEventInit = {}) => box().trigger('keydown', { key: 'Enter', ...extra })
  const set = (more: Props) => wrapper.setProps({ extra: { ...base, ...props, ...more } })
  return { wrapper, box, type, enter, set, calls, pending }
}

describe('ChatComposer while the agent asks', () => {
  beforeEach(() => {
    localStorage.clear()
    setLocale('en')
  })
  afterEach(() => {
    document.body.innerHTML = ''
    vi.unstubAllGlobals()
  })

  it('answers the question with Enter, once for a double Enter, and empties the box', async () => {
    const c = mountComposer({ question: QUESTION, answering: false })
    expect(c.box().attributes('placeholder')).toContain("Answer the agent's question")
    expect(c.box().attributes('aria-label')).toContain("Answer the agent's question")
    await c.type('green, please')
    await c.enter()
    await c.enter()
    expect(c.calls.answer).toEqual(['green, please'])
    expect(c.calls.steer).toEqual([])
    c.pending[0](true)
    await nextTick()
    expect((c.box().element as HTMLTextAreaElement).value).toBe('')
  })

  it('names its primary button Answer and keeps Guide as a second button', async () => {
    const c = mountComposer({ question: QUESTION, answering: false })
    await c.type('blue')
    const answer = c.wrapper.get('[data-testid="answer-button"]')
    expect(answer.text()).toBe('Answer')
    expect(answer.attributes('type')).toBe('submit')
    await c.wrapper.get('[data-testid="steer-button"]').trigger('click')
    expect(c.calls.steer).toEqual(['blue'])
    expect(c.calls.answer).toEqual([])
    expect(c.wrapper.find('[data-testid="send-button"]').exists()).toBe(false)
  })

  it('answers again after a refused answer, and not while one is on its way', async () => {
    const c = mountComposer({ question: QUESTION, answering: false })
    await c.type('green')
    await c.enter()
    await c.set({ question: QUESTION, answering: true })
    await c.enter()
    expect(c.calls.answer).toHaveLength(1)
    c.pending[0](false) // refused: the text stays
    await c.set({ question: QUESTION, answering: false })
    expect((c.box().element as HTMLTextAreaElement).value).toBe('green')
    await c.enter()
    expect(c.calls.answer).toEqual(['green', 'green'])
  })

  it('leaves the Enter of an input method alone', async () => {
    const c = mountComposer({ question: QUESTION, answering: false })
    await c.type('nihao')
    await c.enter({ isComposing: true })
    await c.enter({ keyCode: 229 })
    expect(c.calls.answer).toEqual([])
  })

  it('writes a new line with Enter on a touch screen, and its button answers', async () => {
    vi.stubGlobal('matchMedia', (query: string) => ({
      matches: query.includes('pointer: coarse'), media: query, addEventListener: () => undefined, removeEventListener: () => undefined,
    }))
    const c = mountComposer({ question: QUESTION, answering: false })
    await c.type('red')
    await c.enter()
    expect(c.calls.answer).toEqual([])
    expect(c.box().attributes('placeholder')).toBe("Answer the agent's question…")
    await c.wrapper.get('form').trigger('submit')
    expect(c.calls.answer).toEqual(['red'])
  })

  it('guides with Enter while the agent works without asking', async () => {
    const c = mountComposer({ question: null })
    await c.type('prefer blue')
    await c.enter()
    expect(c.calls.steer).toEqual(['prefer blue'])
    expect(c.wrapper.find('[data-testid="answer-button"]').exists()).toBe(false)
  })

  it('speaks Chinese', async () => {
    setLocale('zh')
    const c = mountComposer({ question: QUESTION, answering: false })
    await c.type('红')
    expect(c.box().attributes('placeholder')).toContain('回答 Agent 的问题')
    expect(c.wrapper.get('[data-testid="answer-button"]').text()).toBe('回答')
  })
})

describe('ChatComposer answer refused before it went', () => {
  it('lets the person answer again when the answer was refused at once', async () => {
    localStorage.clear()
    setLocale('en')
    const c = mountComposer({ question: QUESTION, answering: false })
    await c.type('green')
    await c.enter()
    c.pending[0](false) // refused without ever being on its way (no busy in between)
    await nextTick()
    expect(c.wrapper.get('[data-testid="answer-button"]').attributes('disabled')).toBeUndefined()
    await c.enter()
    expect(c.calls.answer).toEqual(['green', 'green'])
    document.body.innerHTML = ''
  })
})

describe('ChatComposer answer on its way', () => {
  it('does not send the answer again as guidance when the question closes before the reply', async () => {
    localStorage.clear()
    setLocale('en')
    const c = mountComposer({ question: QUESTION, answering: false })
    await c.type('green')
    await c.enter()
    // the stream says "answered" before the POST itself returns
    await c.set({ question: null, answering: true })
    await c.enter()
    expect(c.wrapper.find('[data-testid="answer-button"]').exists()).toBe(true)
    expect(c.calls.steer).toEqual([])
    c.pending[0](true)
    await c.set({ question: null, answering: false })
    expect((c.box().element as HTMLTextAreaElement).value).toBe('')
    expect(c.calls.answer).toEqual(['green'])
    expect(c.wrapper.find('[data-testid="answer-button"]').exists()).toBe(false)
    document.body.innerHTML = ''
  })
})
