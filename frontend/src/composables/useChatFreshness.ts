// The chat in view kept in step with the server when it may have changed elsewhere: when the
// tab becomes visible again, and when another tab of this browser starts, renews or ends a
// run of this chat (its cross-tab lock changes: a storage event). Not while this tab is
// starting a run of its own (`busy`): its answer is on its way.
import { getCurrentScope, onScopeDispose } from 'vue'
import { LOCK_PREFIX } from '@/lib/browser/tabLock'
import type { ChatMessages } from './useChatMessages'

export interface FreshnessOptions {
  view: ChatMessages
  busy: () => boolean
  /** The tab became visible again (the session list may have changed too). */
  onVisible?: () => void
}

/** After another tab took the lock its run is being started: look again this much later. */
const START_GRACE_MS = 1000

export function useChatFreshness({ view, busy, onVisible }: FreshnessOptions): { dispose: () => void } {
  let again: ReturnType<typeof setTimeout> | undefined
  const catchUp = async (): Promise<boolean> => !busy() && (await view.catchUp())
  function visible(): void {
    if (document.hidden) return
    onVisible?.()
    void catchUp()
  }
  async function storage(event: StorageEvent): Promise<void> {
    const id = view.session.value?.id
    if (id === undefined || event.key !== LOCK_PREFIX + id) return
    const taken = event.oldValue === null && event.newValue !== null
    if (!(await catchUp()) && taken) {
      clearTimeout(again)
      again = setTimeout(() => void catchUp(), START_GRACE_MS)
    }
  }
  document.addEventListener('visibilitychange', visible)
  const onStorage = (event: StorageEvent) => void storage(event)
  window.addEventListener('storage', onStorage)
  const dispose = () => {
    clearTimeout(again)
    document.removeEventListener('visibilitychange', visible)
    window.removeEventListener('storage', onStorage)
  }
  if (getCurrentScope()) onScopeDispose(dispose)
  return { dispose }
}
