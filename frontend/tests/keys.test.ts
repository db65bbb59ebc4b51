import { describe, expect, it } from 'vitest'
import { enterSends, isImeKey } from '@/lib/browser/keys'

describe('isImeKey', () => {
  it('is the input method’s while it composes, or for Safari’s keyCode 229 after it', () => {
    expect(isImeKey(new KeyboardEvent('keydown', { key: 'Enter', isComposing: true }))).toBe(true)
    expect(isImeKey(new KeyboardEvent('keydown', { key: 'Enter', keyCode: 229 }))).toBe(true)
  })

  it('is the page’s otherwise', () => {
    expect(isImeKey(new KeyboardEvent('keydown', { key: 'Enter', keyCode: 13 }))).toBe(false)
    expect(isImeKey(new KeyboardEvent('keydown', { key: 'Escape' }))).toBe(false)
  })
})

describe('enterSends', () => {
  const enter = (init: KeyboardEventInit = {}) => new KeyboardEvent('keydown', { key: 'Enter', keyCode: 13, ...init })

  it('sends with Enter on a keyboard with Shift', () => {
    expect(enterSends(enter(), false)).toBe(true)
    expect(enterSends(enter({ shiftKey: true }), false)).toBe(false)
    expect(enterSends(enter({ isComposing: true }), false)).toBe(false)
  })

  it('writes a new line on a touch screen, whose keyboard has no Shift+Enter', () => {
    expect(enterSends(enter(), true)).toBe(false)
  })
})
