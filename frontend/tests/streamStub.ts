// A stubbed fetch for the run pool: each call to the stream URL gets a controllable SSE body.
import { vi } from 'vitest'

export interface OpenStream {
  url: URL
  runs: string[]
  lastIds: number[]
  send(runId: string, id: number, event: string, data?: Record<string, unknown>): void
  raw(text: string): void
  close(): void
  fail(): void
  aborted: boolean
}

export function streamFetch(options: { status?: (call: number) => number } = {}) {
  const opened: OpenStream[] = []
  const encoder = new TextEncoder()
  const fetch = vi.fn(async (input: string, init?: RequestInit) => {
    const url = new URL(input, 'http://localhost')
    const status = options.status?.(opened.length) ?? 200
    let controller!: ReadableStreamDefaultController<Uint8Array>
    const body = new ReadableStream<Uint8Array>({ start: (c) => void (controller = c) })
    const stream: OpenStream = {
      url,
      runs: (url.searchParams.get('runs') ?? '').split(',').filter(Boolean),
      lastIds: (url.searchParams.get('lastEventIds') ?? '').split(',').filter(Boolean).map(Number),
      aborted: false,
      send(runId, id, event, data = {}) {
        this.raw(`id: ${id}\nevent: ${event}\ndata: ${JSON.stringify({ runId, ...data })}\n\n`)
      },
      raw(text) {
        try {
          controller.enqueue(encoder.encode(text))
        } catch {
          /* closed */
        }
      },
      close() {
        try {
          controller.close()
        } catch {
          /* closed */
        }
      },
      fail() {
        try {
          controller.error(new TypeError('network error'))
        } catch {
          /* closed */
        }
      },
    }
    init?.signal?.addEventListener('abort', () => {
      stream.aborted = true
      stream.fail()
    })
    opened.push(stream)
    if (status !== 200) {
      return new Response(JSON.stringify({ error: { code: 'x', message: 'no' } }), { status })
    }
    return new Response(body, { status: 200, headers: { 'Content-Type': 'text/event-stream' } })
  })
  return { fetch, opened, last: () => opened[opened.length - 1] }
}

/** Wait until a condition holds (microtasks and timers get to run), or fail after timeoutMs. */
export async function until(cond: () => boolean, timeoutMs = 2000): Promise<void> {
  const start = Date.now()
  while (!cond()) {
    if (Date.now() - start > timeoutMs) throw new Error('condition not met in time')
    await new Promise((r) => setTimeout(r, 1))
  }
}
