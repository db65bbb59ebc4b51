import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { mount } from '@vue/test-utils'
import { createI18n } from 'vue-i18n'
import { nextTick } from 'vue'
import { MAX_SPACING_MS, renderSpacing } from '@/lib/display/renderPace'

let clock = 0
vi.mock('@/lib/display/markdown', () => ({
  copyText: vi.fn(),
  // a long answer: every render takes 60 ms of the page's time
  renderMarkdown: vi.fn((text: string) => {
    clock += 60
    return `<p>${text}</p>`
  }),
}))

describe('renderSpacing', () => {
  it('renders every frame while cheap, then waits three renders long, at most half a second', () => {
    expect(renderSpacing(0)).toBe(0)
    expect(renderSpacing(5)).toBe(0)
    expect(renderSpacing(40)).toBe(120)
    expect(renderSpacing(5000)).toBe(MAX_SPACING_MS)
    expect(renderSpacing(Number.NaN)).toBe(0)
  })
})

describe('MarkdownView while text streams in', () => {
  beforeEach(() => {
    clock = 0
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'requestAnimationFrame', 'cancelAnimationFrame'] })
    vi.spyOn(performance, 'now').mockImplementation(() => clock)
  })
  afterEach(() => vi.useRealTimers())

  it('spaces slow renders out and still shows the last words', async () => {
    const { renderMarkdown } = await import('@/lib/display/markdown')
    const { default: MarkdownView } = await import('@/components/common/MarkdownView.vue')
    const i18n = createI18n({ legacy: false, locale: 'en', messages: { en: {} }, missingWarn: false, fallbackWarn: false })
    const view = mount(MarkdownView, { props: { source: 'w0' }, global: { plugins: [i18n] } })
    const before = vi.mocked(renderMarkdown).mock.calls.length
    let text = 'w0'
    for (let i = 1; i <= 30; i++) {
      text += ` w${i}`
      await view.setProps({ source: text })
      vi.advanceTimersByTime(16) // one frame per token, for half a second
      clock += 16
    }
    const renders = vi.mocked(renderMarkdown).mock.calls.length - before
    expect(renders).toBeGreaterThan(1) // it kept following the text...
    expect(renders).toBeLessThanOrEqual(4) // ...but not a 60 ms render every 16 ms frame
    vi.advanceTimersByTime(1000)
    await nextTick()
    expect(view.html()).toContain('w30')
  })
})
