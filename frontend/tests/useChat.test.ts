import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { effectScope } from 'vue'
import type { Message, Session } from '@/api/schema'
import { useChat } from '@/composables/useChat'
import { createRunPool, type RunPool } from '@/composables/useGlobalRuns'
import { setNotifier } from '@/lib/browser/notify'
import { TabLock } from '@/lib/browser/tabLock'
import { log, message } from './fixtures'
import { streamFetch, until } from './streamStub'

type Handler = (body: unknown, url: URL) => unknown
let routes: Record<string, Handler>
let calls: string[]
let errors: string[]
let pool: RunPool
let stub: ReturnType<typeof streamFetch>
let scope: ReturnType<typeof effectScope>

function session(id: number, fields: Partial<Session> = {}): Session {
  return {
    id, sessionUuid: `u${id}`, title: `S${id}`, modelId: null, skillFolder: null, toolsets: null, approvals: [], mcpOff: [], compressionModelId: null, hermesSession: null, status: 'ACTIVE', createdAt: '', updatedAt: '',
    lastMessageAt: null, lastSummarizedAt: null, lastMessagePreview: null, match: null, hasActiveRun: false, hasPendingClarify: false, activeRunId: null, ...fields,
  }
}

function json(status: number, body: unknown): Response {
  return new Response(body === undefined ? null : JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } })
}

beforeEach(() => {
  calls = []
  errors = []
  routes = {}
  setNotifier({ error: (t) => errors.push(t), success: () => undefined, info: () => undefined })
  vi.stubGlobal('fetch', async (input: string, init: RequestInit = {}) => {
    const url = new URL(input, 'http://localhost')
    const key = `${init.method ?? 'GET'} ${url.pathname}`
    calls.push(key + url.search)
    const handler = routes[key]
    if (!handler) return json(404, { error: { code: 'no_route', message: `no route ${key}` } })
    const body = init.body ? JSON.parse(String(init.body)) : undefined
    const out = handler(body, url)
    return out instanceof Response ? out : json(200, out)
  })
  stub = streamFetch()
  pool = createRunPool({ fetch: stub.fetch, backoffMs: [5], pollMs: 5, cleanupMs: 1000 })
  localStorage.clear()
})

afterEach(() => {
  scope?.stop()
  pool.dispose()
  setNotifier(null)
  vi.unstubAllGlobals()
})

function chat(lock = new TabLock({ tabId: 'me' }), onSessionChanged = vi.fn()) {
  scope = effectScope()
  const c = scope.run(() => useChat({ pool, lock, onSessionChanged }))!
  return { c, onSessionChanged }
}

const history: Message[] = [
  message(1, { content: 'Hi' }),
  message(2, { role: 'ASSISTANT', status: 'SUCCESS', content: 'Hello', runId: 'old', logs: [log(1, 'tool_call', 'q', { toolName: 'search' })], siblingCount: 2, siblingIndex: 1 }),
]

describe('useChat', () => {
  it('loads a session and replays stored thinking', async () => {
    routes['GET /api/chat/sessions/1'] = () => ({ session: session(1), messages: history, hasMore: true })
    const { c } = chat()
    await c.view.load(1)
    expect(c.view.messages.value).toHaveLength(2)
    expect(c.view.stateOf(c.view.messages.value[1]).toolHistory[0].name).toBe('search')
    expect(c.actions.isRunning.value).toBe(false)
    expect(c.view.hasMore.value).toBe(true)
  })

  it('sends, streams through the pool, and finishes the message', async () => {
    routes['GET /api/chat/sessions/1'] = () => ({ session: session(1), messages: history, hasMore: false })
    routes['POST /api/chat/sessions/1/runs'] = (body) => {
      expect(body).toMatchObject({ message: 'Why?' })
      return json(201, { runId: 'r1', messageId: 11, userMessageId: 10 })
    }
    const { c, onSessionChanged } = chat()
    await c.view.load(1)
    expect(await c.actions.send('  Why?  ')).toBe(true)
    expect(c.view.messages.value.map((m) => [m.id, m.role, m.status])).toEqual([
      [1, 'USER', 'SENT'], [2, 'ASSISTANT', 'SUCCESS'], [10, 'USER', 'SENT'], [11, 'ASSISTANT', 'RUNNING'],
    ])
    expect(c.actions.isRunning.value).toBe(true)
    expect(c.view.currentRunId.value).toBe('r1')
    await until(() => stub.opened.length === 1)
    expect(stub.last().runs).toEqual(['r1'])
    stub.last().send('r1', 1, 'node_stream', { kind: 'answer_delta', content: 'Because' })
    await until(() => c.view.stateOf(c.view.messages.value[3]).answer === 'Because')
    stub.last().send('r1', 2, 'context_compacted', { summary: 'short', summaryMessageId: 50 })
    stub.last().send('r1', 3, 'workflow_complete', { messageId: 11, finalText: 'Because.' })
    await until(() => c.view.messages.value.some((m) => m.id === 11 && m.status === 'SUCCESS'))
    expect(c.view.messages.value.find((m) => m.id === 11)!.content).toBe('Because.')
    expect(c.view.messages.value.find((m) => m.id === 50)).toMatchObject({ role: 'SYSTEM', status: 'SUMMARY', content: 'short' })
    expect(c.actions.isRunning.value).toBe(false)
    expect(onSessionChanged).toHaveBeenCalledWith(1)
    expect(localStorage.getItem('agentchat.lock.session.1')).toBeNull()
  })

  it('says nothing when Stop comes just after the run ended by itself', async () => {
    routes['GET /api/chat/sessions/1'] = () => ({ session: session(1), messages: history, hasMore: false })
    routes['POST /api/chat/sessions/1/runs'] = () => json(201, { runId: 'r1', messageId: 11, userMessageId: 10 })
    routes['POST /api/chat/runs/r1/stop'] = () => json(409, { error: { code: 'run_finished', message: 'run r1 has already ended' } })
    const { c } = chat()
    await c.view.load(1)
    await c.actions.send('Why?')
    await c.actions.stop()
    expect(calls).toContain('POST /api/chat/runs/r1/stop')
    expect(errors).toEqual([])
  })

  it('refuses to send while another tab holds the session', async () => {
    routes['GET /api/chat/sessions/1'] = () => ({ session: session(1), messages: [], hasMore: false })
    new TabLock({ tabId: 'other' }).acquire(1)
    const { c } = chat()
    await c.view.load(1)
    expect(await c.actions.send('hello')).toBe(false)
    expect(errors[0]).toMatch(/another tab/)
    expect(calls.some((k) => k.startsWith('POST'))).toBe(false)
  })

  it('shows the turns another tab added before sending, and sends nothing then', async () => {
    const elsewhere = [message(1, { content: 'from tab A' }), message(2, { role: 'ASSISTANT', status: 'SUCCESS', content: 'answer A' })]
    let detail: Message[] = []
    routes['GET /api/chat/sessions/1'] = () => ({ session: session(1), messages: detail, hasMore: false })
    routes['GET /api/chat/sessions/1/messages'] = () => ({ messages: elsewhere, hasMore: false })
    const { c } = chat()
    await c.view.load(1)
    detail = elsewhere
    expect(await c.actions.send('my question')).toBe(false)
    expect(c.view.messages.value.map((m) => m.content)).toEqual(['from tab A', 'answer A'])
    expect(calls.some((k) => k.startsWith('POST /api/chat/sessions/1/runs'))).toBe(false)
    expect(await c.view.catchUp()).toBe(false) // in step now: nothing to load
  })

  it('shows the API error message when a send fails and releases the lock', async () => {
    routes['GET /api/chat/sessions/1'] = () => ({ session: session(1), messages: [], hasMore: false })
    routes['POST /api/chat/sessions/1/runs'] = () => json(409, { error: { code: 'conflict', message: 'chat session 1 is archived; restore it to continue' } })
    const { c } = chat()
    await c.view.load(1)
    expect(await c.actions.send('hello')).toBe(false)
    expect(errors).toEqual(['This chat is archived. Restore it to continue.'])
    expect(localStorage.getItem('agentchat.lock.session.1')).toBeNull()
  })

  it('finds a chat deleted elsewhere gone before sending to it, and when the tab is shown again', async () => {
    let deleted = false
    const missing = () => json(404, { error: { code: 'not_found', message: 'chat session 1 not found' } })
    routes['GET /api/chat/sessions/1'] = () => (deleted ? missing() : { session: session(1), messages: history, hasMore: false })
    routes['GET /api/chat/sessions/1/messages'] = () => (deleted ? missing() : { messages: history, hasMore: false })
    routes['POST /api/chat/sessions/1/runs'] = () => missing()
    const { c } = chat()
    await c.view.load(1)
    deleted = true
    expect(await c.actions.send('still there?')).toBe(false)
    expect(c.view.gone.value).toBe(1)
    expect(calls).not.toContain('POST /api/chat/sessions/1/runs')
    expect(localStorage.getItem('agentchat.lock.session.1')).toBeNull()
    c.view.clear()
    expect(c.view.gone.value).toBeNull()

    deleted = false
    await c.view.load(1)
    deleted = true
    document.dispatchEvent(new Event('visibilitychange'))
    await until(() => c.view.gone.value === 1)
  })

  it('resumes a RUNNING message after a reload and keeps following it across session switches', async () => {
    const running = message(4, { role: 'ASSISTANT', status: 'RUNNING', runId: 'live', logs: [log(1, 'thinking', 'partial')] })
    routes['GET /api/chat/sessions/1'] = () => ({ session: session(1), messages: [message(3), running], hasMore: false })
    routes['GET /api/chat/sessions/2'] = () => ({ session: session(2), messages: [], hasMore: false })
    const { c } = chat()
    await c.view.load(1)
    expect(c.actions.isRunning.value).toBe(true)
    await until(() => stub.opened.length === 1)
    expect(stub.last().lastIds).toEqual([0])
    await c.view.load(2)
    stub.last().send('live', 1, 'node_stream', { kind: 'thinking', content: 'while away' })
    await until(() => pool.getState('live')?.thinking === 'while away')
    expect(stub.last().aborted).toBe(false)
    expect(pool.isRunning(1)).toBe(true)
    await c.view.load(1)
    expect(c.view.stateOf(c.view.messages.value[1]).thinking).toBe('while away')
    expect(stub.opened).toHaveLength(1)
  })

  it('edits a user message then starts a run on the new id', async () => {
    routes['GET /api/chat/sessions/1'] = () => ({ session: session(1), messages: history, hasMore: false })
    routes['PATCH /api/chat/messages/1'] = (body) => {
      expect(body).toEqual({ content: 'Hi again' })
      return { newMessageId: 20 }
    }
    routes['POST /api/chat/sessions/1/runs'] = (body) => {
      expect(body).toEqual({ message: 'Hi again', parentMessageId: 20 })
      return json(201, { runId: 'r2', messageId: 21, userMessageId: 20 })
    }
    const { c } = chat()
    await c.view.load(1)
    expect(await c.actions.editAndResend(1, 'Hi again')).toBe(true)
    expect(calls.filter((k) => k.startsWith('GET /api/chat/sessions/1'))).toHaveLength(2) // reloaded
    await until(() => stub.opened.length === 1)
    expect(stub.last().runs).toEqual(['r2'])
  })

  it('regenerates and switches versions through the API', async () => {
    routes['GET /api/chat/sessions/1'] = () => ({ session: session(1), messages: history, hasMore: false })
    routes['POST /api/chat/messages/2/regenerate'] = () => json(201, { runId: 'r3', newMessageId: 30 })
    routes['GET /api/chat/messages/2/versions'] = () => [
      { messageId: 5, branchOrder: 0, isActive: false }, { messageId: 2, branchOrder: 1, isActive: true },
    ]
    let activated = 0
    routes['POST /api/chat/messages/5/activate'] = () => {
      activated = 5
      return { activeMessageId: 5 }
    }
    const { c } = chat()
    await c.view.load(1)
    expect(await c.actions.regenerate(2)).toBe(true)
    await until(() => stub.opened.length === 1)
    expect(stub.last().runs).toEqual(['r3'])
    stub.last().send('r3', 1, 'workflow_complete', { finalText: 'x' })
    await until(() => !pool.isRunning(1))
    await c.view.switchVersion(c.view.messages.value[1], -1)
    expect(activated).toBe(5)
  })

  it('loads older messages with before=', async () => {
    routes['GET /api/chat/sessions/1'] = () => ({ session: session(1), messages: [message(51), message(52)], hasMore: true })
    routes['GET /api/chat/sessions/1/messages'] = (_, url) => {
      expect(url.searchParams.get('before')).toBe('51')
      return { messages: [message(49), message(50)], hasMore: false }
    }
    const { c } = chat()
    await c.view.load(1)
    await c.view.loadOlder()
    expect(c.view.messages.value.map((m) => m.id)).toEqual([49, 50, 51, 52])
    expect(c.view.hasMore.value).toBe(false)
  })

  it('answers a clarify request through the run clarify endpoint', async () => {
    const running = message(4, { role: 'ASSISTANT', status: 'RUNNING', runId: 'live' })
    routes['GET /api/chat/sessions/1'] = () => ({ session: session(1), messages: [message(3), running], hasMore: false })
    let resumed: unknown = null
    routes['POST /api/chat/runs/live/clarify'] = (body) => (resumed = body) && {}
    pool.dispose()
    pool = createRunPool({ fetch: stub.fetch, backoffMs: [5], cleanupMs: 1000 })
    const { c } = chat()
    await c.view.load(1)
    await until(() => stub.opened.length === 1)
    stub.last().send('live', 1, 'node_stream', { kind: 'clarify_request', content: '', meta: { clarifyId: 'k', question: 'Which?', choices: ['a'] } })
    await until(() => c.actions.pendingClarify.value !== null)
    expect(await c.actions.submitClarify('a')).toBe(true)
    expect(resumed).toEqual({ clarifyId: 'k', answer: 'a' })
    expect(c.actions.pendingClarify.value).toBeNull()
  })
})
