import type { InputHTMLAttributes } from 'vue'

/** Attributes for a Naive UI input's inner <input>/<textarea> (aria-label, data-testid, …). */
export function ia(attrs: Record<string, string>): InputHTMLAttributes {
  return attrs as InputHTMLAttributes
}
