// Live events of the run pool merged into the messages in view: a compaction inserts its
// divider, the end of a run completes its message (or reloads when the run was lost). Every
// run end, of this session or another, is reported through onRunEnded.
import { getCurrentScope, onScopeDispose } from 'vue'
import type { ChatMessages } from './useChatMessages'
import type { RunPool } from './useGlobalRuns'

function isEnd(event: string): boolean {
  return event === 'workflow_complete' || event === 'workflow_error'
}

export function useLiveMessages(pool: RunPool, view: ChatMessages, onRunEnded: (sessionId: number) => void) {
  const off = pool.onEvent((runId, event, entry) => {
    const sessionId = view.session.value?.id
    if (entry.sessionId !== null && entry.sessionId !== sessionId) {
      if (isEnd(event.event)) onRunEnded(entry.sessionId)
      return
    }
    if (event.event === 'context_compacted') {
      const id = typeof event.data.summaryMessageId === 'number' ? event.data.summaryMessageId : null
      view.insertSummary(runId, String(event.data.summary ?? ''), id)
    }
    if (!isEnd(event.event)) return
    // An end without an id was made up by the pool (a snapshot, a lost run): the server's copy wins.
    if (event.data.lost || event.id === null) void view.reload().catch(() => undefined)
    else view.finishRun(runId)
    if (sessionId !== undefined) onRunEnded(sessionId)
  })
  if (getCurrentScope()) onScopeDispose(off)
  return { dispose: off }
}
