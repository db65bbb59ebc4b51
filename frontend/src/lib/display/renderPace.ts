// How soon a streaming answer is rendered again. Every frame while rendering is cheap; an answer
// long enough that a render takes a while waits a few times that long before the next one, so
// the page keeps answering clicks, keys and scrolling while it streams (a 60 KB answer, or 400
// lines of code in no named language, kept the tab busy most of the time it streamed).

/** Below this a render counts as cheap: the next one may come with the next frame. */
export const CHEAP_RENDER_MS = 8
/** The time between renders, in renders' durations: the page is free at least 3/4 of it. */
export const SPACING_FACTOR = 3
/** Never longer than this: the newest words still show about twice a second. */
export const MAX_SPACING_MS = 500

/** How long to wait after a render that took `costMs` before the next one starts. */
export function renderSpacing(costMs: number): number {
  if (!(costMs >= CHEAP_RENDER_MS)) return 0
  return Math.min(MAX_SPACING_MS, Math.round(costMs * SPACING_FACTOR))
}
