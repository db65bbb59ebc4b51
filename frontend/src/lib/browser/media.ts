// A CSS media query as a reactive boolean, kept in step with the browser (resize, OS theme).
import { getCurrentScope, onScopeDispose, ref, type Ref } from 'vue'

export function matchMediaRef(query: string): Ref<boolean> {
  const list = typeof window !== 'undefined' && window.matchMedia ? window.matchMedia(query) : null
  const matches = ref(list?.matches ?? false)
  if (!list) return matches
  const update = (event: MediaQueryListEvent) => (matches.value = event.matches)
  list.addEventListener('change', update)
  if (getCurrentScope()) onScopeDispose(() => list.removeEventListener('change', update))
  return matches
}

/** Below this width the session list becomes a drawer (matches the CSS breakpoint). */
export const NARROW_QUERY = '(max-width: 767.98px)'

/** A touch screen without a mouse (phones, tablets): no hover, no Shift+Enter. */
export const TOUCH_QUERY = '(hover: none) and (pointer: coarse)'

/**
 * Narrow and short: a phone whose on-screen keyboard is up, or a desktop zoomed to 200 %. The
 * composer keeps to a few rows and the page tightens its spacing; on a touch screen (the
 * keyboard, for a moment) it also drops what can wait — see the CSS in styles.css. A zoomed
 * desktop keeps everything: nothing would bring it back.
 */
export const SHORT_QUERY = '(max-width: 767.98px) and (max-height: 520px)'
