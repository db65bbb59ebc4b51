import { describe, expect, it } from 'vitest'
import { fittedHeight } from '@/lib/browser/autoGrow'

describe('fittedHeight', () => {
  it('keeps to the least rows for an empty box', () => {
    expect(fittedHeight(0, 20, 10, 2, 8)).toBe(50)
  })
  it('grows with the text between the rows', () => {
    expect(fittedHeight(10 + 20 * 4, 20, 10, 2, 8)).toBe(90)
  })
  it('stops at the most rows, however long the text', () => {
    expect(fittedHeight(10 + 20 * 500, 20, 10, 2, 8)).toBe(170)
  })
  it('rounds a fractional height up, never cutting a line', () => {
    expect(fittedHeight(70.4, 20, 10, 1, 8)).toBe(71)
  })
  it('keeps one row at least', () => {
    expect(fittedHeight(0, 20, 10, 0, 0)).toBe(30)
  })
})
