// A layer over the page made modal: everything else on the page is made inert (no focus, no
// clicks, hidden from screen readers), so Tab stays inside the layer. Returns the undo.

export function inertOutside(keep: readonly Element[]): () => void {
  const changed: Element[] = []
  const kept = (el: Element) => keep.some((k) => el === k || el.contains(k))
  for (const start of keep) {
    for (let node: Element | null = start; node && node !== document.body; node = node.parentElement) {
      for (const sibling of Array.from(node.parentElement?.children ?? [])) {
        if (sibling === node || kept(sibling) || sibling.hasAttribute('inert')) continue
        sibling.setAttribute('inert', '')
        changed.push(sibling)
      }
    }
  }
  return () => changed.splice(0).forEach((el) => el.removeAttribute('inert'))
}

const FOCUSABLE = 'a[href], button:not([disabled]), input:not([disabled]), textarea:not([disabled]), select:not([disabled]), [tabindex]:not([tabindex="-1"])'

/** Tab from the layer's last control comes back to its first, Shift+Tab the other way round
 * (a modal dialog's focus never leaves it for the browser's own controls). */
export function wrapTab(layer: HTMLElement, event: KeyboardEvent): void {
  if (event.key !== 'Tab') return
  const controls = Array.from(layer.querySelectorAll<HTMLElement>(FOCUSABLE)).filter((el) => el.getClientRects().length > 0)
  const first = controls[0]
  const last = controls[controls.length - 1]
  if (!first || !last) return
  const active = document.activeElement
  if (!layer.contains(active)) return // a dialog opened over the layer keeps its own keys
  if (event.shiftKey ? active === first : active === last) {
    event.preventDefault()
    ;(event.shiftKey ? last : first).focus()
  }
}
