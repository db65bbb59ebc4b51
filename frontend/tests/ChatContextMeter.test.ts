import { mount } from '@vue/test-utils'
import { describe, expect, it } from 'vitest'
import { i18n } from '@/i18n'
import ChatContextMeter from '@/views/chat/ChatContextMeter.vue'
import ChatMessageUsage from '@/views/chat/ChatMessageUsage.vue'

const global = { plugins: [i18n] }

describe('ChatContextMeter', () => {
  it('shows the window after the latest answer and warns near compaction', () => {
    const messages = [
      { role: 'ASSISTANT', usage: { contextTokens: 1700, contextLength: 131072 } },
      { role: 'USER', usage: null },
      { role: 'ASSISTANT', usage: { contextTokens: 100000, contextLength: 131072 } },
    ]
    const wrapper = mount(ChatContextMeter, { props: { messages }, global })
    const meter = wrapper.get('[data-testid="context-meter"]')
    expect(meter.attributes('data-level')).toBe('near')
    expect(wrapper.get('[data-testid="context-meter-value"]').text()).toBe('100.0k/131.1k')
    expect(wrapper.get('[role="meter"]').attributes('aria-valuenow')).toBe('100000')
  })

  it('is absent before any answer reported usage', () => {
    const wrapper = mount(ChatContextMeter, { props: { messages: [{ role: 'USER', usage: null }] }, global })
    expect(wrapper.find('[data-testid="context-meter"]').exists()).toBe(false)
  })
})

describe('ChatMessageUsage', () => {
  it('lists the prompt and completion tokens and the summariser when it ran', () => {
    const usage = { promptTokens: 4321, completionTokens: 12, apiCalls: 3, summaryPromptTokens: 50, summaryCompletionTokens: 5 }
    const wrapper = mount(ChatMessageUsage, { props: { usage }, global })
    expect(wrapper.get('[data-testid="usage-prompt"]').text()).toContain('4')
    expect(wrapper.text()).toContain('55')
    expect(wrapper.text()).toContain('3')
  })

  it('renders nothing for an answer without usage', () => {
    const wrapper = mount(ChatMessageUsage, { props: { usage: null }, global })
    expect(wrapper.find('[data-testid="message-usage"]').exists()).toBe(false)
  })
})
