// A tab left open across an upgrade asks the server for chunks of its own build, which the new
// build replaced (their names carry their hash). The router's import then fails, and a click on
// a link did nothing. The page loads itself again at the address asked for, once; if the chunk
// is still missing right after, it says so instead of reloading in a loop.
import { ref } from 'vue'

const KEY = 'agentchat.reloadedForBuild'
const AGAIN_AFTER_MS = 30_000

/** True once a reload did not help: the page shows a message with a button to try again. */
export const pageLoadFailed = ref(false)

const CHUNK_ERRORS =
  /Failed to fetch dynamically imported module|error loading dynamically imported module|Importing a module script failed|Unable to preload CSS/i

export function isChunkLoadError(err: unknown): boolean {
  return CHUNK_ERRORS.test(err instanceof Error ? err.message : String(err))
}

export interface ReloadDeps {
  now?: number
  storage?: Pick<Storage, 'getItem' | 'setItem'>
  go?: (path: string) => void
}

/** Loads `path` afresh (the new build's page) unless that was just tried. */
export function reloadForNewBuild(path: string, deps: ReloadDeps = {}): boolean {
  const now = deps.now ?? Date.now()
  const storage = deps.storage ?? sessionStorage
  const last = storage.getItem(KEY)
  if (last !== null && now - Number(last) < AGAIN_AFTER_MS) {
    pageLoadFailed.value = true
    return false
  }
  storage.setItem(KEY, String(now))
  ;(deps.go ?? ((to: string) => window.location.assign(to)))(path)
  return true
}
