import { describe, expect, it } from 'vitest'
import { createBottomPin, distanceFromBottom, isScrollUpKey } from '@/lib/chat/bottomPin'

const box = (scrollTop: number, scrollHeight = 2000, clientHeight = 500) => ({ scrollTop, scrollHeight, clientHeight })

describe('createBottomPin', () => {
  it('is released by a small step up from the bottom (a trackpad, a finger)', () => {
    const pin = createBottomPin()
    expect(pin.scrolled(box(1500))).toBe(true) // the page's own scroll to the bottom
    expect(pin.scrolled(box(1475))).toBe(false) // 25 px up: well inside the old 80 px threshold
    expect(distanceFromBottom(box(1475))).toBe(25)
  })

  it('stays released while new content grows below the reader', () => {
    const pin = createBottomPin()
    pin.scrolled(box(1500))
    pin.scrolled(box(1490))
    expect(pin.scrolled(box(1490, 2400))).toBe(false)
  })

  it('follows again once the reader scrolls back down near the bottom', () => {
    const pin = createBottomPin()
    pin.scrolled(box(1500))
    pin.scrolled(box(1000))
    expect(pin.scrolled(box(1300))).toBe(false) // still 200 px away
    expect(pin.scrolled(box(1450))).toBe(true) // 50 px away, going down
  })

  it('is not released when content shrinks under a pinned view (the browser clamps scrollTop)', () => {
    const pin = createBottomPin()
    pin.scrolled(box(1500))
    expect(pin.scrolled(box(1200, 1700))).toBe(true)
  })

  it('can be released before the scroll lands, and pinned again', () => {
    const pin = createBottomPin()
    pin.release()
    expect(pin.pinned).toBe(false)
    pin.pin()
    expect(pin.pinned).toBe(true)
  })

  it('judges a first scroll by its distance alone', () => {
    expect(createBottomPin().scrolled(box(0))).toBe(false)
    expect(createBottomPin().scrolled(box(1450))).toBe(true)
  })

  it('does not take the page\'s own scroll, overtaken by growing content, for the reader\'s', () => {
    const pin = createBottomPin()
    pin.scrolled(box(1500))
    pin.moved(box(1600, 2100)) // the page scrolled to the bottom of 2100 px...
    expect(pin.scrolled(box(1600, 2200))).toBe(true) // ...and the content grew before its event
  })

  it('knows the keys that scroll up', () => {
    expect(isScrollUpKey({ key: 'PageUp' })).toBe(true)
    expect(isScrollUpKey({ key: 'ArrowUp' })).toBe(true)
    expect(isScrollUpKey({ key: 'PageDown' })).toBe(false)
  })
})
