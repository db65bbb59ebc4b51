// The session in view (spec §5.4), bound to the run pool: load, send, stop, regenerate, edit and
// resend, switch versions, older pages, export, reset, clarify answers.
import { computed, getCurrentScope, onScopeDispose, ref, shallowRef } from 'vue'
import { chatApi } from '@/api/chat'
import { authFetch, ApiError } from '@/api/http'
import { runsApi } from '@/api/runs'
import type { Message, Session, StartRunBody } from '@/api/types'
import { t } from '@/i18n'
import { notifyError } from '@/lib/notify'
import { buildReplayState } from '@/lib/replay'
import { isTerminal, type RunState } from '@/lib/runState'
import { TabLock } from '@/lib/tabLock'
import { prependOlder, runningMessage, siblingAt } from '@/lib/tree'
import { useGlobalRuns, type RunPool } from './useGlobalRuns'

export interface UseChatOptions {
  pool?: RunPool
  lock?: TabLock
  /** Called when a session's list entry may have changed (title, activity, running state). */
  onSessionChanged?: (sessionId: number) => void
  heartbeatMs?: number
}

let sharedLock: TabLock | null = null
function tabLock(): TabLock {
  sharedLock ??= new TabLock()
  return sharedLock
}

function placeholder(id: number, sessionId: number, fields: Partial<Message>): Message {
  return {
    id, sessionId, parentId: null, role: 'USER', content: '', status: 'SENT', isActive: true, branchOrder: 0,
    siblingCount: 1, siblingIndex: 0, runId: null, modelId: null, skillFolder: null, error: null,
    createdAt: new Date().toISOString(), completedAt: null, usage: null, logs: [], ...fields,
  }
}

export function useChat(options: UseChatOptions = {}) {
  const pool = options.pool ?? useGlobalRuns()
  const lock = options.lock ?? tabLock()
  const session = ref<Session | null>(null)
  const messages = ref<Message[]>([])
  const hasMore = ref(false)
  const loading = ref(false)
  const loadingOlder = ref(false)
  const sending = ref(false)
  const replays = shallowRef(new Map<number, RunState>())
  let loadSeq = 0

  const running = computed(() => runningMessage(messages.value))
  const currentRunId = computed(() => running.value?.runId ?? null)
  const isRunning = computed(
    () => Boolean(running.value) || (session.value ? pool.isRunning(session.value.id) : false),
  )
  const pendingAsk = computed(() => pool.getPendingAsk(currentRunId.value))
  const reconnecting = computed(() => pool.isReconnecting(currentRunId.value))

  /** The thinking panel state of an assistant message: live from the pool, else replayed. */
  function stateOf(message: Message): RunState {
    if (message.status === 'RUNNING' && message.runId) {
      const live = pool.getState(message.runId)
      if (live) return live
    }
    let cached = replays.value.get(message.id)
    if (!cached) {
      cached = buildReplayState(message)
      replays.value.set(message.id, cached)
    }
    return cached
  }

  function followRunning(): void {
    const m = running.value
    if (m?.runId && session.value) {
      pool.track(m.runId, { sessionId: session.value.id, startedAt: Date.parse(m.createdAt) || Date.now() })
      if (pool.getState(m.runId) && isTerminal(pool.getState(m.runId)!.status)) applyFinished(m.runId)
    }
  }

  async function load(sessionId: number): Promise<void> {
    const seq = ++loadSeq
    loading.value = true
    try {
      const detail = await chatApi.getSession(sessionId)
      if (seq !== loadSeq) return
      session.value = detail.session
      messages.value = detail.messages
      hasMore.value = detail.hasMore
      replays.value = new Map()
      followRunning()
    } catch (err) {
      if (seq === loadSeq) notifyError(err)
      throw err
    } finally {
      if (seq === loadSeq) loading.value = false
    }
  }

  async function reload(): Promise<void> {
    if (session.value) await load(session.value.id)
  }

  async function loadOlder(): Promise<void> {
    const first = messages.value[0]
    if (!session.value || !first || !hasMore.value || loadingOlder.value) return
    loadingOlder.value = true
    try {
      const page = await chatApi.olderMessages(session.value.id, first.id)
      messages.value = prependOlder(page.messages, messages.value)
      hasMore.value = page.hasMore
    } catch (err) {
      notifyError(err)
    } finally {
      loadingOlder.value = false
    }
  }

  function guardSend(): boolean {
    if (!session.value) return false
    if (isRunning.value) {
      notifyError(new Error(t('chat.busy')))
      return false
    }
    if (!lock.acquire(session.value.id)) {
      notifyError(new Error(t('chat.otherTab')))
      void reload().catch(() => undefined) // show (and follow) the other tab's run
      return false
    }
    return true
  }

  async function withRunStart<T>(start: () => Promise<T>): Promise<T | null> {
    if (!guardSend()) return null
    const sessionId = session.value!.id
    sending.value = true
    try {
      return await start()
    } catch (err) {
      lock.release(sessionId)
      notifyError(err)
      return null
    } finally {
      sending.value = false
    }
  }

  /** Send a new question at the end of the active branch. */
  async function send(text: string, choice: { modelId?: number | null; skillFolder?: string | null } = {}) {
    const message = text.trim()
    if (!message) return false
    const started = await withRunStart(async () => {
      const s = session.value!
      const body: StartRunBody = { message, modelId: choice.modelId ?? null, skillFolder: choice.skillFolder ?? null }
      const result = await runsApi.start(s.id, body)
      const leaf = messages.value[messages.value.length - 1]
      const user = placeholder(result.userMessageId, s.id, { content: message, parentId: leaf?.id ?? null })
      const assistant = placeholder(result.messageId, s.id, {
        role: 'ASSISTANT', status: 'RUNNING', runId: result.runId, parentId: result.userMessageId,
      })
      messages.value = [...messages.value, user, assistant]
      pool.track(result.runId, { sessionId: s.id, startedAt: Date.now() })
      options.onSessionChanged?.(s.id)
      return result
    })
    return started !== null
  }

  async function startAndReload(start: () => Promise<{ runId: string }>): Promise<boolean> {
    const done = await withRunStart(async () => {
      const sessionId = session.value!.id
      const { runId } = await start()
      pool.track(runId, { sessionId, startedAt: Date.now() })
      await load(sessionId)
      options.onSessionChanged?.(sessionId)
      return runId
    })
    return done !== null
  }

  /** A new version of an assistant reply (also the Retry of a FAILED one). */
  const regenerate = (messageId: number) => startAndReload(() => runsApi.regenerate(messageId))

  /** Edit a user message into a new sibling, then answer it. */
  const editAndResend = (messageId: number, content: string) =>
    startAndReload(async () => {
      const { newMessageId } = await chatApi.editMessage(messageId, content)
      return runsApi.start(session.value!.id, { message: content, parentMessageId: newMessageId })
    })

  async function activate(messageId: number): Promise<void> {
    try {
      await chatApi.activate(messageId)
      await reload()
    } catch (err) {
      notifyError(err)
    }
  }

  /** Step to the previous (-1) or next (+1) sibling of a message and show its branch. */
  async function switchVersion(message: Message, step: number): Promise<void> {
    try {
      const siblings = await chatApi.versions(message.id)
      const target = siblingAt(siblings, message.id, step)
      if (target) await activate(target.messageId)
    } catch (err) {
      notifyError(err)
    }
  }

  async function stop(): Promise<void> {
    const runId = currentRunId.value
    if (!runId) return
    try {
      await pool.stop(runId)
    } catch (err) {
      notifyError(err)
    }
  }

  async function submitClarify(answer: string): Promise<boolean> {
    const runId = currentRunId.value
    const ask = pendingAsk.value
    if (!runId || !ask || !answer.trim()) return false
    try {
      await pool.submitClarify(runId, ask.clarifyId, answer.trim())
      return true
    } catch (err) {
      notifyError(err)
      return false
    }
  }

  async function reset(): Promise<void> {
    if (!session.value) return
    try {
      await chatApi.reset(session.value.id)
      await reload()
    } catch (err) {
      notifyError(err)
    }
  }

  /** Download the export through fetch (so the bearer token goes with it). */
  async function exportSession(format: 'md' | 'json', branch: 'active' | 'all' = 'active'): Promise<void> {
    if (!session.value) return
    try {
      const response = await authFetch(chatApi.exportUrl(session.value.id, format, branch))
      if (!response.ok) throw new ApiError(`${response.status}`, response.status, 'export')
      const blob = await response.blob()
      const disposition = response.headers.get('Content-Disposition') ?? ''
      const name = /filename="?([^";]+)"?/.exec(disposition)?.[1] ?? `chat-${session.value.id}.${format}`
      const url = URL.createObjectURL(blob)
      const a = document.createElement('a')
      a.href = url
      a.download = name
      document.body.appendChild(a)
      a.click()
      a.remove()
      setTimeout(() => URL.revokeObjectURL(url), 10_000)
    } catch (err) {
      notifyError(err)
    }
  }

  // ---- live events of runs in this session ---------------------------------------------------

  function applyFinished(runId: string): void {
    const state = pool.getState(runId)
    const at = messages.value.findIndex((m) => m.runId === runId)
    if (!state || at === -1) return
    const m = messages.value[at]
    const updated: Message = {
      ...m,
      status: state.status,
      content: state.answer || m.content,
      error: state.error,
      usage: state.usage,
      completedAt: new Date(state.endedAt ?? Date.now()).toISOString(),
    }
    replays.value.set(m.id, state)
    messages.value = messages.value.map((x, i) => (i === at ? updated : x))
  }

  function insertSummary(runId: string, summary: string, summaryMessageId: unknown): void {
    const at = messages.value.findIndex((m) => m.runId === runId)
    if (at === -1 || !session.value) return
    const id = typeof summaryMessageId === 'number' ? summaryMessageId : -Date.now()
    if (messages.value.some((m) => m.id === id)) return
    const divider = placeholder(id, session.value.id, { role: 'SYSTEM', status: 'SUMMARY', content: summary })
    messages.value = [...messages.value.slice(0, at), divider, ...messages.value.slice(at)]
  }

  const off = pool.onEvent((runId, event, entry) => {
    const sessionId = session.value?.id
    if (entry.sessionId !== null && entry.sessionId !== sessionId) {
      if (event.event === 'workflow_complete' || event.event === 'workflow_error') {
        lock.release(entry.sessionId)
        options.onSessionChanged?.(entry.sessionId)
      }
      return
    }
    if (event.event === 'context_compacted') insertSummary(runId, String(event.data.summary ?? ''), event.data.summaryMessageId)
    if (event.event === 'workflow_complete' || event.event === 'workflow_error') {
      if (sessionId !== undefined) lock.release(sessionId)
      const lost = Boolean(event.data.lost) || event.id === null
      if (lost) void reload().catch(() => undefined)
      else applyFinished(runId)
      if (sessionId !== undefined) options.onSessionChanged?.(sessionId)
    }
  })

  const heartbeat = setInterval(() => lock.renew(), options.heartbeatMs ?? 5000)

  if (getCurrentScope()) {
    onScopeDispose(() => {
      off()
      clearInterval(heartbeat)
    })
  }

  return {
    session,
    messages,
    hasMore,
    loading,
    loadingOlder,
    sending,
    isRunning,
    currentRunId,
    pendingAsk,
    reconnecting,
    stateOf,
    load,
    reload,
    loadOlder,
    send,
    stop,
    regenerate,
    editAndResend,
    activate,
    switchVersion,
    submitClarify,
    reset,
    exportSession,
    dispose: () => {
      off()
      clearInterval(heartbeat)
    },
  }
}

export type ChatState = ReturnType<typeof useChat>
