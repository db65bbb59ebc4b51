import { describe, expect, it } from 'vitest'
import { isImeKey } from '@/lib/keys'

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
