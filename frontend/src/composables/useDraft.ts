// Binds a text box to its chat's draft (lib/chat/drafts): saved a moment after each change and when
// the page is hidden, swapped when the chat changes. While a send is in flight the text is the
// send's: it stays in the box through the new chat's creation and is dropped once sent.
import { onBeforeUnmount, onMounted, watch, type Ref } from 'vue'
import { dropDraft, loadDraft, saveDraft, type DraftKey } from '@/lib/chat/drafts'

const SAVE_AFTER_MS = 300

export interface Draft {
  /** Call before sending the text; call what it returns with the send's outcome. */
  hold(): (sent: boolean) => void
}

export function useDraft(key: () => DraftKey, text: Ref<string>): Draft {
  let timer: ReturnType<typeof setTimeout> | undefined
  let holds = 0
  // What the store holds for this chat as far as this tab knows: a tab that did not change the
  // text does not write it back (over what another tab typed into the same chat).
  let stored: string | null = (text.value = loadDraft(key()))

  function flush(at: DraftKey = key()): void {
    clearTimeout(timer)
    timer = undefined
    if (holds || text.value === stored) return
    saveDraft(at, text.value)
    stored = text.value
  }

  watch(text, () => {
    if (holds) return
    clearTimeout(timer)
    timer = setTimeout(() => flush(), SAVE_AFTER_MS)
  })

  watch(key, (now, before) => {
    if (holds) return
    flush(before)
    stored = text.value = loadDraft(now)
  })

  function onHidden(): void {
    if (document.visibilityState === 'hidden') flush()
  }
  const onPageHide = (): void => flush()
  onMounted(() => {
    window.addEventListener('pagehide', onPageHide)
    document.addEventListener('visibilitychange', onHidden)
  })
  onBeforeUnmount(() => {
    flush()
    window.removeEventListener('pagehide', onPageHide)
    document.removeEventListener('visibilitychange', onHidden)
  })

  function hold(): (sent: boolean) => void {
    const from = key()
    holds++
    clearTimeout(timer)
    return (sent) => {
      holds--
      if (sent) {
        dropDraft(from)
        dropDraft(key())
        stored = text.value = ''
      } else {
        stored = null
        flush()
      }
    }
  }

  return { hold }
}
