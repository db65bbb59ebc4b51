import { describe, expect, it } from 'vitest'
import { TabLock } from '@/lib/browser/tabLock'

describe('TabLock', () => {
  it('lets one tab hold a session and refuses another until release or expiry', () => {
    let now = 1000
    const storage = window.localStorage
    storage.clear()
    const a = new TabLock({ storage, tabId: 'a', ttlMs: 100, now: () => now })
    const b = new TabLock({ storage, tabId: 'b', ttlMs: 100, now: () => now })
    expect(a.acquire(1)).toBe(true)
    expect(b.acquire(1)).toBe(false)
    expect(b.acquire(2)).toBe(true)
    a.release(1)
    expect(b.acquire(1)).toBe(true)
    now += 50
    b.renew()
    now += 80
    expect(a.acquire(1)).toBe(false) // renewed, still held
    now += 200
    expect(a.acquire(1)).toBe(true) // b's lock expired (tab gone)
  })
})
