import { afterEach, describe, expect, it } from 'vitest'
import { watch as watchRef } from 'vue'
import type { Health } from '@/api/health'
import { ApiError } from '@/api/http'
import { createHealthWatch, problemOf, type HealthWatch } from '@/composables/useServiceHealth'
import { until } from './streamStub'

let watch: HealthWatch | null = null
afterEach(() => {
  watch?.dispose()
  watch = null
})

const ok: Health = { status: 'ok', database: 'sqlite' }
const degraded: Health = { status: 'degraded', database: 'sqlite', reason: 'the local bridge stopped; restarting it' }

describe('useServiceHealth', () => {
  it('names the problem: the agent service, the database, or the server', () => {
    expect(problemOf(ok)).toBeNull()
    expect(problemOf(degraded)).toEqual({ kind: 'agent', reason: 'the local bridge stopped; restarting it' })
    expect(problemOf(new ApiError('database gone', 503, 'database_unavailable'))).toEqual({ kind: 'database', reason: 'database gone' })
    expect(problemOf(new ApiError('Failed to fetch', 0, 'network'))).toEqual({ kind: 'server', reason: '' })
  })

  it('shows a problem while it lasts and checks more often meanwhile', async () => {
    const answers: Array<Health | Error> = [ok, degraded, degraded, ok]
    let calls = 0
    watch = createHealthWatch({
      get: async () => {
        const answer = answers[Math.min(calls++, answers.length - 1)]
        if (answer instanceof Error) throw answer
        return answer
      },
      okMs: 30,
      problemMs: 5,
      hidden: () => false,
    })
    await until(() => calls >= 1)
    expect(watch.problem.value).toBeNull()
    await until(() => watch?.problem.value?.kind === 'agent')
    await until(() => calls >= 4 && watch?.problem.value === null)
  })

  it('takes one unanswered check for a blip: the server is "unreachable" after two in a row', async () => {
    const lost = new ApiError('Failed to fetch', 0, 'network')
    const answers: Array<Health | Error> = [ok, lost, ok, lost, lost, ok]
    let calls = 0
    const seen: Array<string | null> = []
    watch = createHealthWatch({
      get: async () => {
        const answer = answers[Math.min(calls++, answers.length - 1)]
        if (answer instanceof Error) throw answer
        return answer
      },
      okMs: 5,
      problemMs: 5,
      confirmMs: 5,
      hidden: () => false,
    })
    const w = watch
    const stop = watchRef(w.problem, (p) => seen.push(p?.kind ?? null), { flush: 'sync' })
    await until(() => calls >= 6 && w.problem.value === null)
    stop()
    expect(seen).toEqual(['server', null]) // the lone failure (2nd check) never showed
  })

  it('does not poll a hidden tab, and asks at once when told to', async () => {
    let calls = 0
    let hidden = true
    watch = createHealthWatch({
      get: async () => {
        calls++
        return degraded
      },
      okMs: 5,
      problemMs: 5,
      hidden: () => hidden,
    })
    await until(() => calls === 1) // the first check, at start
    await new Promise((r) => setTimeout(r, 40))
    expect(calls).toBe(1)
    await watch.check()
    expect(calls).toBe(2)
    hidden = false
    await until(() => calls >= 4)
  })
})
