import { describe, expect, it } from 'vitest'
import { downloadName } from '@/lib/browser/download'

describe('downloadName', () => {
  it('takes the UTF-8 name first: a title in any script', () => {
    const header = `attachment; filename="plans.md"; filename*=UTF-8''%E5%91%A8%E6%9C%AB%20plans.md`
    expect(downloadName(header, 'chat-1.md')).toBe('周末 plans.md')
  })
  it('takes the plain name when there is no UTF-8 one', () => {
    expect(downloadName('attachment; filename="Trip to Lyon.md"', 'x')).toBe('Trip to Lyon.md')
    expect(downloadName('attachment; filename=trip.md', 'x')).toBe('trip.md')
  })
  it('falls back when the header names nothing or is broken', () => {
    expect(downloadName(null, 'chat-1.md')).toBe('chat-1.md')
    expect(downloadName(`attachment; filename*=UTF-8''%E5%91`, 'chat-1.md')).toBe('chat-1.md')
  })
})
