// The session in view (spec §5.4), wired from one-concern composables: the messages and their
// pages (useChatMessages), the pool's live events merged into them (useLiveMessages), run
// actions (useRunActions), catching up with changes made elsewhere (useChatFreshness: when the
// tab is visible again, when another tab runs this chat, before sending and after this chat's
// run ends), the export download and the cross-tab lock.
import type { ExportBranch, ExportFormat } from '@/api/chat'
import type { TabLock } from '@/lib/browser/tabLock'
import { useChatMessages } from './useChatMessages'
import { useChatFreshness } from './useChatFreshness'
import { useExportDownload } from './useExportDownload'
import { useGlobalRuns, type RunPool } from './useGlobalRuns'
import { useLiveMessages } from './useLiveMessages'
import { useRunActions } from './useRunActions'
import { useTabLock } from './useTabLock'

export interface UseChatOptions {
  pool?: RunPool
  lock?: TabLock
  /** Called when a session's list entry may have changed (title, activity, running state). */
  onSessionChanged?: (sessionId: number) => void
  /** The tab became visible again. */
  onVisible?: () => void
  heartbeatMs?: number
}

export function useChat(options: UseChatOptions = {}) {
  const pool = options.pool ?? useGlobalRuns()
  const { lock, dispose: stopHeartbeat } = useTabLock(options.lock, options.heartbeatMs)
  const view = useChatMessages(pool)
  const actions = useRunActions({ pool, view, lock, onSessionChanged: options.onSessionChanged })
  const live = useLiveMessages(pool, view, (sessionId) => {
    lock.release(sessionId)
    options.onSessionChanged?.(sessionId)
    // a turn slipped in elsewhere under the question just answered shows now
    if (sessionId === view.session.value?.id && !actions.sending.value) void view.catchUp()
  })
  const freshness = useChatFreshness({ view, busy: () => actions.sending.value, onVisible: options.onVisible })
  const { download } = useExportDownload()

  return {
    view,
    actions,
    exportSession: async (format: ExportFormat, branch: ExportBranch = 'active') => {
      if (view.session.value) await download(view.session.value.id, format, branch)
    },
    dispose: () => {
      live.dispose()
      freshness.dispose()
      stopHeartbeat()
    },
  }
}

export type ChatState = ReturnType<typeof useChat>
