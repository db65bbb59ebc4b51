// The cross-tab lock (spec §2.2): one TabLock per tab, shared by every view, renewed by a
// heartbeat while the calling scope lives so another tab sees the session as busy.
import { getCurrentScope, onScopeDispose } from 'vue'
import { TabLock } from '@/lib/browser/tabLock'

let shared: TabLock | null = null

export interface TabLockHandle {
  lock: TabLock
  dispose: () => void
}

export function useTabLock(lock: TabLock = (shared ??= new TabLock()), heartbeatMs = 5000): TabLockHandle {
  const heartbeat = setInterval(() => lock.renew(), heartbeatMs)
  const dispose = () => clearInterval(heartbeat)
  if (getCurrentScope()) onScopeDispose(dispose)
  return { lock, dispose }
}
