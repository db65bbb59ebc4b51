// setTimeout handles owned by one object, all cleared by its dispose.

export type Timer = ReturnType<typeof setTimeout>

export function createTimers() {
  const pending = new Set<Timer>()
  return {
    later(fn: () => void, ms: number): Timer {
      const t = setTimeout(() => {
        pending.delete(t)
        fn()
      }, ms)
      pending.add(t)
      return t
    },
    /** Clear one timer; returns null to reset the variable that held it. */
    cancel(t: Timer | null): null {
      if (t) {
        clearTimeout(t)
        pending.delete(t)
      }
      return null
    },
    clear(): void {
      for (const t of pending) clearTimeout(t)
      pending.clear()
    },
  }
}
