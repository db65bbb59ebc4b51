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
  confirmMs?: number // after one unanswered check, the next comes this soon
  hidden?: () => boolean
}

export function problemOf(health: Health | ApiError | unknown): ServiceProblem | null {
  if (health instanceof ApiError) {
    const kind = health.code === 'database_unavailable' ? 'database' : 'server'
    // the browser's own words for a lost connection ("Failed to fetch") say nothing more
    return { kind, reason: health.code === 'network' ? '' : health.message }
  }
  if (health && typeof health === 'object' && 'status' in health) {
    const h = health as Health
    return h.status === 'degraded' ? { kind: 'agent', reason: h.reason ?? '' } : null
  }
  return { kind: 'server', reason: String(health) }
}

function sameProblem(a: ServiceProblem | null, b: ServiceProblem | null): boolean {
  return a === b || (a !== null && b !== null && a.kind === b.kind && a.reason === b.reason)
}

export function createHealthWatch(options: Options = {}): HealthWatch {
  const get = options.get ?? healthApi.get
  const okMs = options.okMs ?? 10_000
  const problemMs = options.problemMs ?? 3_000
  const confirmMs = options.confirmMs ?? 1_000
  const hidden = options.hidden ?? (() => typeof document !== 'undefined' && document.hidden)
  const problem = ref<ServiceProblem | null>(null)
  let timer: ReturnType<typeof setTimeout> | undefined
  let disposed = false

  let unanswered = 0 // checks in a row the server did not answer

  async function check(): Promise<void> {
    clearTimeout(timer)
    let next: ServiceProblem | null
    try {
      next = problemOf(await get())
    } catch (err) {
      next = problemOf(err)
    }
    unanswered = next?.kind === 'server' ? unanswered + 1 : 0
    if (unanswered === 1 && problem.value?.kind !== 'server') {
      schedule(confirmMs) // one lost request is a blip (a phone between networks) until the next says so
      return
    }
    if (!sameProblem(problem.value, next)) problem.value = next
    schedule()
  }

  function schedule(ms: number = problem.value ? problemMs : okMs): void {
    if (disposed) return
    timer = setTimeout(() => (hidden() ? schedule() : void check()), ms)
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
