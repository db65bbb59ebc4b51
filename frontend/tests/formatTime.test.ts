import { afterEach, describe, expect, it, vi } from 'vitest'
import { formatTime } from '@/lib/display/format'

// The chat list shows one time per chat and is drawn again whenever a chat changes (a running
// answer changes its chat often): a new Intl formatter per row and per drawing was a
// measurable part of the page's CPU.
describe('formatTime', () => {
  afterEach(() => vi.restoreAllMocks())

  it('gives the time of day for today and the day for another date', () => {
    const now = new Date()
    const today = new Date(now.getFullYear(), now.getMonth(), now.getDate(), 9, 5).toISOString()
    expect(formatTime(today, 'en-GB')).toBe('09:05')
    expect(formatTime('2024-03-07T12:00:00Z', 'en-GB')).toBe('7 Mar')
    expect(formatTime('2024-03-07T12:00:00Z', 'zh-CN')).toBe('3月7日')
    expect(formatTime('not a date', 'en-GB')).toBe('')
    expect(formatTime(null)).toBe('')
  })

  it('builds one formatter per locale and kind, not one per call', () => {
    const Real = Intl.DateTimeFormat
    let built = 0
    vi.spyOn(Intl, 'DateTimeFormat').mockImplementation(((...args: ConstructorParameters<typeof Real>) => {
      built += 1
      return new Real(...args)
    }) as unknown as typeof Intl.DateTimeFormat)
    const spyDate = vi.spyOn(Date.prototype, 'toLocaleDateString')
    const spyTime = vi.spyOn(Date.prototype, 'toLocaleTimeString')
    const today = new Date().toISOString()
    for (let i = 0; i < 50; i++) {
      formatTime(today, 'fr-FR')
      formatTime('2024-03-07T12:00:00Z', 'fr-FR')
    }
    expect(built).toBeLessThanOrEqual(2)
    expect(spyDate).not.toHaveBeenCalled()
    expect(spyTime).not.toHaveBeenCalled()
  })
})
