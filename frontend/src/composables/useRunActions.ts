// What the person does to runs of the session in view: send, regenerate, edit and resend,
// stop, answer a clarify question, reset. One run per session: a tab takes the cross-tab lock
// before starting one and gives it back when the start fails (the run's end releases it too).
import { computed, ref } from 'vue'
import { chatApi } from '@/api/chat'
import { ApiError } from '@/api/http'
import { runsApi } from '@/api/runs'
import { useServiceHealth } from '@/composables/useServiceHealth'
import type { Message, StartRunBody, Attachment } from '@/api/schema'
import { t } from '@/i18n'
import { notifier, notifyError } from '@/lib/browser/notify'
import type { TabLock } from '@/lib/browser/tabLock'
import { placeholder, type ChatMessages } from './useChatMessages'
import type { RunPool } from './useGlobalRuns'

export interface RunActionsOptions {
  pool: RunPool
  view: ChatMessages
  lock: TabLock
  /** A session's list entry may have changed (title, activity, running state). */
  onSessionChanged?: (sessionId: number) => void
}

export interface RunChoice {
  modelId?: number | null
  skillFolder?: string | null
  /** Files uploaded for this question (it may then have no text). */
  attachments?: Attachment[]
}

export function useRunActions({ pool, view, lock, onSessionChanged }: RunActionsOptions) {
  const sending = ref(false)
  const isRunning = computed(
    () => Boolean(view.currentRunId.value) || (view.session.value ? pool.isRunning(view.session.value.id) : false),
  )
  const pendingClarify = computed(() => pool.getPendingClarify(view.currentRunId.value))
  const reconnecting = computed(() => pool.isReconnecting(view.currentRunId.value))
  // The clarify question whose answer is on its way: a second tap does not send it again.
  const answering = ref<string | null>(null)
  const clarifyBusy = computed(() => answering.value !== null)

  function guardStart(): boolean {
    if (!view.session.value) return false
    if (isRunning.value) {
      notifyError(new Error(t('chat.busy')))
      return false
    }
    if (!lock.acquire(view.session.value.id)) {
      notifyError(new Error(t('chat.otherTab')))
      void view.reload().catch(() => undefined) // show (and follow) the other tab's run
      return false
    }
    return true
  }

  async function withRunStart<T>(start: (sessionId: number) => Promise<T>): Promise<T | null> {
    if (!guardStart()) return null
    const sessionId = view.session.value!.id
    sending.value = true
    try {
      const result = await start(sessionId)
      onSessionChanged?.(sessionId)
      return result
    } catch (err) {
      lock.release(sessionId)
      notifyError(err)
      // the chat (or its message) is not there any more: deleted in another tab or device?
      if (err instanceof ApiError && err.status === 404) void view.catchUp()
      // the agent service is down: the banner says so now, not at the next health check
      if (err instanceof ApiError && err.code === 'bridge_unavailable') void useServiceHealth().check()
      return null
    } finally {
      sending.value = false
    }
  }

  /** Send a new question at the end of the active branch. When the chat moved on elsewhere
   * (another tab's turn), its new turns are shown first and nothing is sent: the question was
   * written without them, and the agent would read them as its context. */
  async function send(text: string, choice: RunChoice = {}): Promise<boolean> {
    const message = text.trim()
    const files = choice.attachments ?? []
    if ((!message && !files.length) || sending.value) return false
    const id = view.session.value?.id
    if (id !== undefined && !lock.heldElsewhere(id)) {
      // (another tab's run in this chat: the start below says so and shows it)
      sending.value = true
      const moved = await view.catchUp().finally(() => (sending.value = false))
      if (view.gone.value === id) return false
      if (moved) {
        notifier().info(t('chat.caughtUp'))
        return false
      }
    }
    const started = await withRunStart(async (sessionId) => {
      const body: StartRunBody = {
        message,
        modelId: choice.modelId ?? null,
        skillFolder: choice.skillFolder ?? null,
        ...(files.length ? { attachmentIds: files.map((f) => f.id) } : {}),
      }
      const result = await runsApi.start(sessionId, body)
      const leaf = view.messages.value[view.messages.value.length - 1]
      const attachments = files.map((f, i) => ({ ...f, delivery: result.deliveries?.[i] ?? null }))
      const user = placeholder(result.userMessageId, sessionId, { content: message, parentId: leaf?.id ?? null, attachments })
      const assistant = placeholder(result.messageId, sessionId, {
        role: 'ASSISTANT', status: 'RUNNING', runId: result.runId, parentId: result.userMessageId,
      })
      view.appendRun(user, assistant)
      pool.track(result.runId, { sessionId, startedAt: Date.now() })
      return result
    })
    return started !== null
  }

  async function startAndReload(start: (sessionId: number) => Promise<{ runId: string }>): Promise<boolean> {
    const done = await withRunStart(async (sessionId) => {
      const { runId } = await start(sessionId)
      pool.track(runId, { sessionId, startedAt: Date.now() })
      await view.load(sessionId)
      return runId
    })
    return done !== null
  }

  /** A new version of an assistant reply (also the Retry of a FAILED one). */
  const regenerate = (messageId: number) => startAndReload(() => runsApi.regenerate(messageId))

  /** Edit a user message into a new sibling, then answer it. When the edit is saved but its
   * run is refused (the agent service restarting, the rate limit), the page shows the saved
   * edit, unanswered, with Retry (answerAgain). */
  /** `attachmentIds`: the files the new version keeps (undefined: all of the edited one's). */
  async function editAndResend(messageId: number, content: string, attachmentIds?: number[]): Promise<boolean> {
    let edited = false
    const started = await startAndReload(async (sessionId) => {
      const { newMessageId } = await chatApi.editMessage(messageId, content, attachmentIds)
      edited = true
      return runsApi.start(sessionId, { message: content, parentMessageId: newMessageId })
    })
    if (!started && edited) await view.reload().catch(() => undefined)
    return started
  }

  /** Answer a question that has no reply (its run was refused or never started). */
  const answerAgain = (message: Message) =>
    startAndReload((sessionId) => runsApi.start(sessionId, { message: message.content, parentMessageId: message.id }))

  async function stop(): Promise<void> {
    const runId = view.currentRunId.value
    if (!runId) return
    try {
      await pool.stop(runId)
    } catch (err) {
      // The run ended by itself as Stop was pressed: its end arrives on the stream.
      if (err instanceof ApiError && err.code === 'run_finished') return
      notifyError(err)
    }
  }

  /** Guidance for the running agent: it reads it after its current step (no interruption). */
  async function steer(text: string): Promise<boolean> {
    const runId = view.currentRunId.value
    if (!runId || !text.trim()) return false
    try {
      await runsApi.steer(runId, text.trim())
      return true
    } catch (err) {
      notifyError(err)
      return false
    }
  }

  async function submitClarify(answer: string): Promise<boolean> {
    const runId = view.currentRunId.value
    const clarify = pendingClarify.value
    if (!runId || !clarify || !answer.trim() || answering.value === clarify.clarifyId) return false
    answering.value = clarify.clarifyId
    try {
      await pool.submitClarify(runId, clarify.clarifyId, answer.trim())
      return true
    } catch (err) {
      notifyError(err)
      return false
    } finally {
      answering.value = null
    }
  }

  async function reset(): Promise<void> {
    if (!view.session.value) return
    try {
      await chatApi.reset(view.session.value.id)
      await view.reload()
    } catch (err) {
      notifyError(err)
    }
  }

  return { sending, isRunning, pendingClarify, clarifyBusy, reconnecting, send, regenerate, editAndResend, answerAgain, stop, steer, submitClarify, reset }
}

export type RunActions = ReturnType<typeof useRunActions>
