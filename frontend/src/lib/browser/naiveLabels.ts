// Naive UI names its close and loading controls for screen readers in English, whatever the page's
// language ("close", "loading"). They are given the page's words as they appear, and again when
// the language changes.

const NAIVE_WORDS: Record<string, string> = { close: 'common.close', loading: 'common.loading' }
const MARK = 'data-naive-label' // the English word it came with, to translate it again

/** Give every Naive UI label under `root` the page's words. */
export function relabel(root: ParentNode, t: (key: string) => string): void {
  for (const el of root.querySelectorAll<HTMLElement>(`[aria-label="close"], [aria-label="loading"], [${MARK}]`)) {
    const word = el.getAttribute(MARK) ?? el.getAttribute('aria-label') ?? ''
    const key = NAIVE_WORDS[word]
    if (!key) continue
    el.setAttribute(MARK, word)
    const label = t(key)
    if (el.getAttribute('aria-label') !== label) el.setAttribute('aria-label', label)
  }
}

/** Keep relabelling the document as Naive UI adds and updates its controls. */
export function watchNaiveLabels(t: (key: string) => string): () => void {
  const observer = new MutationObserver(() => relabel(document.body, t))
  observer.observe(document.body, { subtree: true, childList: true, attributes: true, attributeFilter: ['aria-label'] })
  relabel(document.body, t)
  return () => observer.disconnect()
}
