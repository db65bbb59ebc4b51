// A scrolling element that follows its newest content until the reader scrolls up (lib/chat/bottomPin):
// scroll events decide, and the reader's wheel up, finger drag down or Page Up releases it before
// the scroll lands, so a token arriving in between cannot pull the reader back. While pinned, it
// follows every change of its content while `live` says the content streams (Markdown renders a
// frame after its text arrives; a person opening an older answer's details is not followed), and
// for a moment after (the answer's last render, its copy row), and stays at the bottom when it
// gets shorter (the phone's keyboard opening). Back at the bottom by any way, it is pinned again.
import { onScopeDispose, ref, watch, type Ref } from 'vue'
import { createBottomPin, distanceFromBottom, isScrollUpKey } from '@/lib/chat/bottomPin'

export interface BottomPinHandle {
  /** Whether the element follows its newest content. */
  pinned: Readonly<Ref<boolean>>
  /** Scroll to the bottom when pinned (after new content). */
  follow: () => void
  /** Pin and scroll to the bottom (Jump to latest, another conversation). */
  toLatest: () => void
  /** Call from the element's scroll event. */
  onScroll: () => void
}

export interface BottomPinOptions {
  /** Whether the content streams now: its changes are followed (default: never, only `follow`). */
  live?: () => boolean
  /** How close to the bottom a scroll down must come to follow again (px). */
  near?: number
  /** How long changes are still followed after `live` ends (ms): the last render, the copy row. */
  settleMs?: number
}

const SETTLE_MS = 1500
const RELEASE_GRACE_MS = 400

export function useBottomPin(element: Ref<HTMLElement | null>, options: BottomPinOptions = {}): BottomPinHandle {
  const live = options.live ?? (() => false)
  const settleMs = options.settleMs ?? SETTLE_MS
  const pin = createBottomPin(options.near)
  const pinned = ref(true)
  let touchY: number | null = null
  let settleUntil = 0
  let releasedAt = -Infinity
  watch(live, (now, before) => {
    if (before && !now) settleUntil = performance.now() + settleMs
  })

  const sync = () => (pinned.value = pin.pinned)
  /** At the bottom, however it got there (the content shrank or stopped growing): following
   * again. Not while it streams, nor right after the reader reached up (their scroll is on its
   * way: the next token must not pull them back). */
  function repinAtBottom(): void {
    const el = element.value
    if (!el || pin.pinned || live() || performance.now() - releasedAt < RELEASE_GRACE_MS) return
    if (distanceFromBottom(el) > 1) return
    pin.pin(el)
    sync()
  }
  const release = () => {
    if (!element.value?.scrollTop) return // nothing above to scroll to
    releasedAt = performance.now()
    pin.release()
    sync()
  }
  function scrollToBottom(): void {
    const el = element.value
    if (!el) return
    el.scrollTop = el.scrollHeight
    pin.moved(el)
  }
  function onWheel(event: WheelEvent): void {
    if (event.deltaY < 0) release()
  }
  function onTouchStart(event: TouchEvent): void {
    touchY = event.touches[0]?.clientY ?? null
  }
  function onTouchMove(event: TouchEvent): void {
    const y = event.touches[0]?.clientY
    if (touchY !== null && y !== undefined && y > touchY + 2) release() // finger down: content up
    if (y !== undefined) touchY = y
  }
  function onKey(event: KeyboardEvent): void {
    if (isScrollUpKey(event)) release()
  }
  const follow = () => pin.pinned && scrollToBottom()
  const streaming = () => live() || performance.now() < settleUntil
  const onResize = () => {
    follow()
    repinAtBottom()
  }
  const onChange = () => {
    if (streaming()) follow()
    repinAtBottom()
  }
  const resize = typeof ResizeObserver === 'undefined' ? null : new ResizeObserver(onResize)
  const changes = typeof MutationObserver === 'undefined' ? null : new MutationObserver(onChange)

  const listeners: [string, EventListener][] = [
    ['wheel', onWheel as EventListener],
    ['touchstart', onTouchStart as EventListener],
    ['touchmove', onTouchMove as EventListener],
    ['keydown', onKey as EventListener],
  ]
  function detach(el: HTMLElement | null | undefined): void {
    if (!el) return
    for (const [name, fn] of listeners) el.removeEventListener(name, fn)
    resize?.unobserve(el)
    changes?.disconnect()
  }
  watch(
    element,
    (el, old) => {
      detach(old)
      if (!el) return
      for (const [name, fn] of listeners) el.addEventListener(name, fn, { passive: true })
      resize?.observe(el)
      changes?.observe(el, { childList: true, subtree: true, characterData: true })
    },
    { immediate: true },
  )
  onScopeDispose(() => {
    detach(element.value)
    resize?.disconnect()
  })

  return {
    pinned,
    follow,
    toLatest() {
      pin.pin()
      sync()
      scrollToBottom()
    },
    onScroll() {
      const el = element.value
      if (!el) return
      // pinned, yet not at the bottom: the content grew between the page's scroll and its event
      if (pin.scrolled(el) && distanceFromBottom(el) > 1) scrollToBottom()
      sync()
    },
  }
}
