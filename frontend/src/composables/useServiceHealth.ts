// Whether the server can answer now, polled from GET /api/health: the agent service down or
// being restarted ("degraded"), the database unavailable (503), or the server unreachable. The
// page shows a banner while it lasts, so a person learns it before sending, not after.
import { readonly, ref, type Ref } from 'vue'
import { healthApi, type Health } from '@/api/health'
import { ApiError } from '@/api/http'

export interface ServiceProblem {
  kind: 'agent' | 'database' | 'server'
  reason: string
}

export interface HealthWatch {
  problem: Readonly<Ref<ServiceProblem | null>>
  /** Ask now (after a refused request, or when the tab comes back). */
  check: () => Promise<void>
  dispose: () => void
}

interface Options {
  get?: () => Promise<Health>
  okMs?: number // between checks while all is well
  problemMs?: number // between checks while a problem shows: the banner goes soon after it ends
  hidden?: () => boolean
}

export function problemOf(health: Health | ApiError | unknown): ServiceProblem | null {
  if (health instanceof ApiError) {
    const kind = health.code === 'database_unavailable' ? 'database' : 'server'
    return { kind, reason: health.message }
  }
  if (health && typeof health === 'object' && 'status' in health) {
    const h = health as Health
    return h.status === 'degraded' ? { kind: 'agent', reason: h.reason ?? '' } : null
  }
  return { kind: 'server', reason: String(health) }
}

export function createHealthWatch(options: Options = {}): HealthWatch {
  const get = options.get ?? healthApi.get
  const okMs = options.okMs ?? 10_000
  const problemMs = options.problemMs ?? 3_000
  const hidden = options.hidden ?? (() => typeof document !== 'undefined' && document.hidden)
  const problem = ref<ServiceProblem | null>(null)
  let timer: ReturnType<typeof setTimeout> | undefined
  let disposed = false

  async function check(): Promise<void> {
    clearTimeout(timer)
    try {
      problem.value = problemOf(await get())
    } catch (err) {
      problem.value = problemOf(err)
    }
    schedule()
  }

  function schedule(): void {
    if (disposed) return
    timer = setTimeout(() => (hidden() ? schedule() : void check()), problem.value ? problemMs : okMs)
  }

  const onVisible = () => {
    if (!hidden()) void check()
  }
  if (typeof document !== 'undefined') document.addEventListener('visibilitychange', onVisible)
  void check()

  return {
    problem: readonly(problem),
    check,
    dispose: () => {
      disposed = true
      clearTimeout(timer)
      if (typeof document !== 'undefined') document.removeEventListener('visibilitychange', onVisible)
    },
  }
}

let shared: HealthWatch | null = null

/** The page's one watch, started on first use. */
export function useServiceHealth(): HealthWatch {
  return (shared ??= createHealthWatch())
}
