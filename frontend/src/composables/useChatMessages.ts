// The messages of the session in view: load, older pages (before=), the branch shown (versions),
// the thinking-panel state of each assistant message (live from the run pool, else replayed),
// and catching up with the server when another tab or device moved the chat on.
import { computed, ref, shallowRef } from 'vue'
import { chatApi } from '@/api/chat'
import { ApiError } from '@/api/http'
import type { Message, Session } from '@/api/schema'
import { notifyError } from '@/lib/browser/notify'
import { buildReplayState, parseTime } from '@/lib/run/replay'
import { isTerminal, type RunState } from '@/lib/run/runState'
import { prependOlder, runningMessage, sameBranchEnd, siblingAt } from '@/lib/chat/tree'
import type { RunPool } from './useGlobalRuns'

/** A message the page shows before the server's copy arrives (a run just started). */
export function placeholder(id: number, sessionId: number, fields: Partial<Message>): Message {
  return {
    id, sessionId, parentId: null, role: 'USER', content: '', status: 'SENT', isActive: true, branchOrder: 0,
    siblingCount: 1, siblingIndex: 0, runId: null, modelId: null, skillFolder: null, error: null,
    createdAt: new Date().toISOString(), completedAt: null, usage: null, logs: [], attachments: [], ...fields,
  }
}

export function useChatMessages(pool: RunPool) {
  const session = ref<Session | null>(null)
  const messages = ref<Message[]>([])
  const hasMore = ref(false)
  const loading = ref(false)
  const loadingOlder = ref(false)
  const replays = shallowRef(new Map<number, RunState>())
  /** The chat asked for, when the server answered that it does not exist (deleted elsewhere). */
  const gone = ref<number | null>(null)
  let loadSeq = 0

  const isMissing = (err: unknown) => err instanceof ApiError && err.status === 404 && err.code === 'not_found'

  const running = computed(() => runningMessage(messages.value))
  const currentRunId = computed(() => running.value?.runId ?? null)

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

  /** Follow the running message's run; fold it in at once when the pool saw it end. */
  function followRunning(): void {
    const m = running.value
    if (!m?.runId || !session.value) return
    pool.track(m.runId, { sessionId: session.value.id, startedAt: Date.parse(m.createdAt) || Date.now() })
    const state = pool.getState(m.runId)
    if (state && isTerminal(state.status)) finishRun(m.runId)
  }

  async function load(sessionId: number): Promise<void> {
    const seq = ++loadSeq
    loading.value = true
    try {
      const detail = await chatApi.getSession(sessionId)
      if (seq !== loadSeq) return
      gone.value = null
      session.value = detail.session
      messages.value = detail.messages
      hasMore.value = detail.hasMore
      replays.value = new Map()
      followRunning()
    } catch (err) {
      if (seq === loadSeq) notifyError(err)
      if (seq === loadSeq && isMissing(err)) gone.value = sessionId
      throw err
    } finally {
      if (seq === loadSeq) loading.value = false
    }
  }

  async function reload(): Promise<void> {
    if (session.value) await load(session.value.id)
  }

  /**
   * Compare the end of the branch shown with the server's and load it again when they differ
   * (another tab or device asked, regenerated, edited or switched a version). Returns whether
   * the page changed. Quiet: a failed look changes nothing (the next request says why), but
   * a chat the server no longer has is marked `gone`.
   */
  async function catchUp(): Promise<boolean> {
    const current = session.value
    if (!current || loading.value) return false
    const seq = loadSeq
    let end: Message[]
    try {
      end = (await chatApi.branchEnd(current.id)).messages
    } catch (err) {
      if (seq === loadSeq && session.value?.id === current.id && isMissing(err)) gone.value = current.id
      return false
    }
    if (seq !== loadSeq || session.value?.id !== current.id || sameBranchEnd(messages.value, end)) return false
    await load(current.id)
    return true
  }

  function clear(): void {
    loadSeq++
    gone.value = null
    session.value = null
    messages.value = []
    hasMore.value = false
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

  /** Show a just-started run: its question and the running reply, at the end of the branch. */
  function appendRun(user: Message, assistant: Message): void {
    const known = new Set(messages.value.map((m) => m.id))
    messages.value = [...messages.value, ...[user, assistant].filter((m) => !known.has(m.id))]
  }

  /** Fold a finished run's final state into its message. */
  function finishRun(runId: string): void {
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
    void takeServerTimes(m.sessionId, m.id)
  }

  /**
   * The finished answer's times as the server stored them (what a reload shows): the live ones
   * were this device's, from the run's start coming back to its end arriving, which a slow
   * network shortened ("Thought for 6 s", then "7 s" after a reload; issue 33).
   */
  async function takeServerTimes(sessionId: number, messageId: number): Promise<void> {
    let stored: Message | undefined
    try {
      stored = (await chatApi.branchEnd(sessionId, 2)).messages.find((x) => x.id === messageId)
    } catch {
      return // the device's times stay: a moment's difference at most
    }
    const startedAt = parseTime(stored?.createdAt)
    const endedAt = parseTime(stored?.completedAt)
    if (!stored || startedAt === null || endedAt === null) return
    const state = replays.value.get(messageId)
    if (state) replays.value.set(messageId, { ...state, startedAt, endedAt })
    messages.value = messages.value.map((x) =>
      x.id === messageId ? { ...x, createdAt: stored.createdAt, completedAt: stored.completedAt } : x,
    )
  }

  /** The divider of a compaction, before the message whose run compacted. */
  function insertSummary(runId: string, summary: string, summaryMessageId: number | null): void {
    const at = messages.value.findIndex((m) => m.runId === runId)
    if (at === -1 || !session.value) return
    const id = summaryMessageId ?? -Date.now()
    if (messages.value.some((m) => m.id === id)) return
    const divider = placeholder(id, session.value.id, { role: 'SYSTEM', status: 'SUMMARY', content: summary })
    messages.value = [...messages.value.slice(0, at), divider, ...messages.value.slice(at)]
  }

  return {
    session,
    messages,
    hasMore,
    loading,
    loadingOlder,
    gone,
    currentRunId,
    stateOf,
    load,
    reload,
    catchUp,
    clear,
    loadOlder,
    activate,
    switchVersion,
    appendRun,
    finishRun,
    insertSummary,
  }
}

export type ChatMessages = ReturnType<typeof useChatMessages>
