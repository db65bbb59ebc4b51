// Whether a scrolling box follows its newest content ("pinned" to the bottom), as a chat does.
// The reader's own scroll up unpins it at once, however small the step: a finger or a trackpad
// moves a few pixels at a time, and a distance threshold alone took those steps for "still at
// the bottom" so the next token pulled the reader back. Scrolling back down near the bottom pins
// it again. The page's own scroll to the bottom, and content growing or shrinking under a pinned
// box, never unpin it.

export interface ScrollBox {
  scrollTop: number
  scrollHeight: number
  clientHeight: number
}

export function distanceFromBottom(box: ScrollBox): number {
  return Math.max(0, box.scrollHeight - box.scrollTop - box.clientHeight)
}

export interface BottomPin {
  readonly pinned: boolean
  /** A scroll event of the box (the reader's or the page's); returns whether it is pinned. */
  scrolled(box: ScrollBox): boolean
  /** The reader reached for older content (wheel up, finger down, Page Up) before the scroll lands. */
  release(): void
  /** Follow the newest content again (Jump to latest, another conversation). */
  pin(box?: ScrollBox): void
  /** The page scrolled the box itself (to the bottom): its scroll event is not the reader's. */
  moved(box: ScrollBox): void
}

/** `near`: how close to the bottom a scroll down must come to follow again (px). */
export function createBottomPin(near = 80): BottomPin {
  let pinned = true
  let lastTop: number | null = null
  return {
    get pinned() {
      return pinned
    },
    scrolled(box) {
      const gap = distanceFromBottom(box)
      const previous = lastTop
      lastTop = box.scrollTop
      if (gap <= 1) pinned = true
      else if (previous === null) pinned = gap < near // no earlier position to compare with
      else if (box.scrollTop < previous - 0.5) pinned = false
      else if (box.scrollTop > previous && gap < near) pinned = true
      return pinned
    },
    release() {
      pinned = false
    },
    pin(box) {
      pinned = true
      lastTop = box ? box.scrollTop : null
    },
    moved(box) {
      lastTop = box.scrollTop
    },
  }
}

/** Keys that scroll a box towards its start. */
export function isScrollUpKey(event: Pick<KeyboardEvent, 'key'>): boolean {
  return event.key === 'PageUp' || event.key === 'ArrowUp' || event.key === 'Home'
}
