import { describe, expect, it } from 'vitest'
import { relabel } from '@/lib/browser/naiveLabels'

const zh: Record<string, string> = { 'common.close': '关闭', 'common.loading': '加载中' }
const en: Record<string, string> = { 'common.close': 'Close', 'common.loading': 'Loading' }

describe('relabel', () => {
  it("gives Naive UI's English screen-reader labels the page's words, again on a change of language", () => {
    document.body.innerHTML = `<button class="n-base-close" aria-label="close"></button>
      <div class="n-base-loading" aria-label="loading"></div><button aria-label="Send"></button>`
    relabel(document.body, (k) => zh[k])
    const labels = () => [...document.querySelectorAll('[aria-label]')].map((el) => el.getAttribute('aria-label'))
    expect(labels()).toEqual(['关闭', '加载中', 'Send'])
    relabel(document.body, (k) => en[k])
    expect(labels()).toEqual(['Close', 'Loading', 'Send'])
  })
})
