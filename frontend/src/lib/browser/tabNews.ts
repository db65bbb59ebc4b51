// What one tab of this browser tells the others at once (BroadcastChannel): a chat it deleted,
// so a second tab showing that chat says it is gone instead of showing it until it looks again.

export interface TabNews {
  deleted?: number
}

const CHANNEL = 'agentchat.tabs'

function channel(): BroadcastChannel | null {
  return typeof BroadcastChannel === 'undefined' ? null : new BroadcastChannel(CHANNEL)
}

export function tellOtherTabs(news: TabNews): void {
  const out = channel()
  if (!out) return
  out.postMessage(news)
  out.close()
}

/** Listen to the other tabs; returns the stop. */
export function listenToOtherTabs(handler: (news: TabNews) => void): () => void {
  const inbox = channel()
  if (!inbox) return () => undefined
  inbox.onmessage = (event: MessageEvent<TabNews>) => handler(event.data ?? {})
  return () => inbox.close()
}
