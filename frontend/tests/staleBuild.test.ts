import { beforeEach, describe, expect, it } from 'vitest'
import { isChunkLoadError, pageLoadFailed, reloadForNewBuild } from '@/lib/browser/staleBuild'

function memory(): Pick<Storage, 'getItem' | 'setItem'> {
  const values = new Map<string, string>()
  return { getItem: (k) => values.get(k) ?? null, setItem: (k, v) => void values.set(k, v) }
}

beforeEach(() => (pageLoadFailed.value = false))

describe('staleBuild', () => {
  it('knows the import errors of Chromium, Firefox, Safari and Vite’s CSS preload', () => {
    expect(isChunkLoadError(new TypeError('Failed to fetch dynamically imported module: http://x/assets/A-1.js'))).toBe(true)
    expect(isChunkLoadError(new TypeError('error loading dynamically imported module'))).toBe(true)
    expect(isChunkLoadError(new TypeError('Importing a module script failed.'))).toBe(true)
    expect(isChunkLoadError(new Error('Unable to preload CSS for /assets/A-1.css'))).toBe(true)
    expect(isChunkLoadError(new Error('404 Not Found'))).toBe(false)
  })

  it('reloads at the address asked for once, then shows a message instead of looping', () => {
    const storage = memory()
    const went: string[] = []
    const go = (path: string): void => void went.push(path)
    expect(reloadForNewBuild('/models', { now: 1_000, storage, go })).toBe(true)
    expect(reloadForNewBuild('/models', { now: 5_000, storage, go })).toBe(false)
    expect(went).toEqual(['/models'])
    expect(pageLoadFailed.value).toBe(true)
    pageLoadFailed.value = false
    expect(reloadForNewBuild('/skills', { now: 60_000, storage, go })).toBe(true) // a later upgrade
    expect(went).toEqual(['/models', '/skills'])
  })
})
