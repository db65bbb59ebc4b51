/**
 * Whether a key belongs to an input method (pinyin, kana…) rather than to the page: the Enter
 * that picks a candidate must not send or commit. Chromium marks it `isComposing`; Safari sends
 * it after compositionend with keyCode 229 ("Process") instead.
 */
export function isImeKey(event: KeyboardEvent): boolean {
  return event.isComposing || event.keyCode === 229
}

/**
 * Whether this Enter sends the question: not with Shift (a new line), not an input method's, and
 * not on a touch screen, whose keyboard has no Shift+Enter: there its return key writes a new
 * line and the send button sends, as phone chat apps do.
 */
export function enterSends(event: KeyboardEvent, touch: boolean): boolean {
  return event.key === 'Enter' && !event.shiftKey && !touch && !isImeKey(event)
}
