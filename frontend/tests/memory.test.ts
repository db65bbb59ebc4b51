import { describe, expect, it } from 'vitest'
import { memoryLength, overLimit } from '@/lib/chat/memory'

describe('memoryLength', () => {
  it('counts the entries as the agent stores them: trimmed, empty ones dropped', () => {
    expect(memoryLength('  one  \n§\n\n§\ntwo\n')).toBe('one\n§\ntwo'.length)
    expect(memoryLength('')).toBe(0)
  })

  it('is over a known limit only', () => {
    expect(overLimit('x'.repeat(11), 10)).toBe(true)
    expect(overLimit('x'.repeat(10), 10)).toBe(false)
    expect(overLimit('x'.repeat(99), 0)).toBe(false)
  })
})
