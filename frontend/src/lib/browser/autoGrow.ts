// A text box that grows with its text between a few rows and a most, measured on the box itself.
// Naive UI's `autosize` copied the whole text into a hidden mirror on every change and laid it
// out again: with 500 pasted lines each key cost a full layout of the text (hundreds of ms on a
// phone, issue 33). The box's own scrollHeight is laid out incrementally by the browser.

/** The box's height in px for its content's height (`scrollHeight` at its smallest). */
export function fittedHeight(contentPx: number, linePx: number, paddingPx: number, minRows: number, maxRows: number): number {
  const least = paddingPx + linePx * Math.max(1, minRows)
  const most = paddingPx + linePx * Math.max(1, minRows, maxRows)
  return Math.min(most, Math.max(least, Math.ceil(contentPx)))
}

/** Sizes `el` to its text now (a style write, one read of its own layout). */
export function fitTextarea(el: HTMLTextAreaElement, minRows: number, maxRows: number): void {
  const style = window.getComputedStyle(el)
  const line = parseFloat(style.lineHeight) || parseFloat(style.fontSize) * 1.5
  const padding = parseFloat(style.paddingTop) + parseFloat(style.paddingBottom)
  el.style.height = '0px' // scrollHeight is then the content's own height
  el.style.height = `${fittedHeight(el.scrollHeight, line, padding, minRows, maxRows)}px`
}
