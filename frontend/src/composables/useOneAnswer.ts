// One answer per question: once given, its buttons stay off while it is on its way (the
// parent's busy comes a moment later, after a double tap's second tap), on again when it was
// refused, and for the next question.
import { ref, watch } from 'vue'

export function useOneAnswer(busy: () => boolean, question: () => string) {
  const sent = ref(false)
  watch(busy, (now, before) => {
    if (before && !now) sent.value = false
  })
  watch(question, () => (sent.value = false))
  /** Whether this answer may go (and from now on the next may not). */
  function take(): boolean {
    if (sent.value || busy()) return false
    sent.value = true
    return true
  }
  return { sent, take }
}
