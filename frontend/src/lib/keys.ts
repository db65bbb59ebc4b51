/**
 * Whether a key belongs to an input method (pinyin, kana…) rather than to the page: the Enter
 * that picks a candidate must not send or commit. Chromium marks it `isComposing`; Safari sends
 * it after compositionend with keyCode 229 ("Process") instead.
 */
export function isImeKey(event: KeyboardEvent): boolean {
  return event.isComposing || event.keyCode === 229
}
