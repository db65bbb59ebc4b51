import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { defineComponent, h, nextTick, ref } from 'vue'
import { mount } from '@vue/test-utils'
import { useDraft, type Draft } from '@/composables/useDraft'
import { dropAllDrafts, dropDraft, loadDraft, moveDraft, saveDraft, type DraftKey } from '@/lib/chat/drafts'
import { account } from '@/lib/accounts/account'
import { navigation, signOut } from '@/lib/accounts/session'

beforeEach(() => localStorage.clear())
afterEach(() => {
  vi.useRealTimers()
  vi.unstubAllGlobals()
  account.user = null
  account.leaving = false
})

const person = (id: number) => ({ id, username: `p${id}`, role: 'user' as const, mode: 'accounts' as const })

describe('drafts', () => {
  it('keeps a draft per chat and drops an empty one', () => {
    saveDraft(1, 'first')
    saveDraft('new', 'fresh')
    expect(loadDraft(1)).toBe('first')
    expect(loadDraft('new')).toBe('fresh')
    expect(loadDraft(2)).toBe('')
    saveDraft(1, '   ')
    expect(localStorage.getItem('agentchat.draft.1')).toBeNull()
    dropDraft('new')
    expect(loadDraft('new')).toBe('')
  })

  it('moves the draft of a deleted chat to the new chat, after what that one holds', () => {
    saveDraft(7, 'my follow-up')
    moveDraft(7, 'new')
    expect(loadDraft(7)).toBe('')
    expect(loadDraft('new')).toBe('my follow-up')
    saveDraft(8, 'another thought')
    moveDraft(8, 'new')
    expect(loadDraft('new')).toBe('my follow-up\n\nanother thought')
    saveDraft(9, 'another thought')
    moveDraft(9, 'new') // the same words twice are kept once
    expect(loadDraft('new')).toBe('my follow-up\n\nanother thought')
    moveDraft(10, 'new') // nothing to move
    expect(loadDraft('new')).toBe('my follow-up\n\nanother thought')
  })

  it('reads a damaged entry as no draft', () => {
    localStorage.setItem('agentchat.draft.3', '{not json')
    localStorage.setItem('agentchat.draft.4', '{"text": 5}')
    expect(loadDraft(3)).toBe('')
    expect(loadDraft(4)).toBe('')
  })

  it("is its writer's: another person signed in on the same browser does not see it", () => {
    account.user = person(1) as typeof account.user
    saveDraft(12, 'alice private thought')
    expect(loadDraft(12)).toBe('alice private thought')
    account.user = person(2) as typeof account.user
    expect(loadDraft(12)).toBe('')
    account.user = null
    expect(loadDraft(12)).toBe('')
  })

  it('is dropped, every one, when the person signs out', async () => {
    account.user = person(1) as typeof account.user
    saveDraft(3, 'one')
    saveDraft('new', 'two')
    localStorage.setItem('theme', 'dark')
    vi.stubGlobal('fetch', async () => new Response('{}', { status: 200 }))
    const assign = vi.spyOn(navigation, 'assign').mockImplementation(() => undefined)
    await signOut()
    expect(assign).toHaveBeenCalledWith('/signin')
    expect(localStorage.getItem('agentchat.draft.3')).toBeNull()
    expect(localStorage.getItem('agentchat.draft.new')).toBeNull()
    expect(localStorage.getItem('theme')).toBe('dark')
    dropAllDrafts() // nothing left to drop
    assign.mockRestore()
  })

  it('keeps the fifty most recent drafts', () => {
    for (let id = 1; id <= 55; id++) saveDraft(id, `draft ${id}`, 1000 + id)
    expect(loadDraft(5)).toBe('')
    expect(loadDraft(6)).toBe('draft 6')
    expect(loadDraft(55)).toBe('draft 55')
    localStorage.setItem('theme', 'dark') // not a draft: left alone
    saveDraft(56, 'draft 56', 2000)
    expect(localStorage.getItem('theme')).toBe('dark')
    expect(loadDraft(6)).toBe('')
  })
})

function mountDraft(key: { value: DraftKey }) {
  const text = ref('')
  let draft: Draft | null = null
  const wrapper = mount(
    defineComponent({
      setup() {
        draft = useDraft(() => key.value, text)
        return () => h('div')
      },
    }),
  )
  return { text, draft: draft as unknown as Draft, wrapper }
}

describe('useDraft', () => {
  it('saves a moment after typing and swaps the text when the chat changes', async () => {
    vi.useFakeTimers()
    saveDraft(2, 'waiting in two')
    const key = ref<DraftKey>(1)
    const { text, wrapper } = mountDraft(key)
    expect(text.value).toBe('')
    text.value = 'typed in one'
    await nextTick()
    expect(loadDraft(1)).toBe('')
    vi.advanceTimersByTime(300)
    expect(loadDraft(1)).toBe('typed in one')

    text.value = 'typed in one, more'
    await nextTick()
    key.value = 2 // before the timer: the change is saved under the chat it was typed in
    await nextTick()
    expect(loadDraft(1)).toBe('typed in one, more')
    expect(text.value).toBe('waiting in two')
    wrapper.unmount()
  })

  it('keeps the text of a send in flight through a change of chat, and drops it once sent', async () => {
    const key = ref<DraftKey>('new')
    const { text, draft, wrapper } = mountDraft(key)
    text.value = 'the first question'
    await nextTick()
    const done = draft.hold()
    key.value = 7 // the send created the chat and opened it
    await nextTick()
    expect(text.value).toBe('the first question')
    done(true)
    await nextTick()
    expect(text.value).toBe('')
    expect(loadDraft('new')).toBe('')
    expect(loadDraft(7)).toBe('')
    wrapper.unmount()
  })

  it('keeps the text of a send that failed, as the draft of the chat it is in', async () => {
    const key = ref<DraftKey>(4)
    const { text, draft, wrapper } = mountDraft(key)
    text.value = 'refused once'
    await nextTick()
    draft.hold()(false)
    expect(text.value).toBe('refused once')
    expect(loadDraft(4)).toBe('refused once')
    wrapper.unmount()
  })

  it('saves when the page is hidden (a closed tab)', async () => {
    const key = ref<DraftKey>(9)
    const { text, wrapper } = mountDraft(key)
    text.value = 'typed just before closing'
    await nextTick()
    window.dispatchEvent(new Event('pagehide'))
    expect(loadDraft(9)).toBe('typed just before closing')
    wrapper.unmount()
  })
})

describe('useDraft in two tabs', () => {
  it('does not write back a draft it did not change (another tab typed it)', async () => {
    const key = ref<DraftKey>(1)
    const { wrapper } = mountDraft(key) // this tab shows chat 1, its box empty
    saveDraft(1, 'typed in the other tab')
    key.value = 2
    await nextTick()
    expect(loadDraft(1)).toBe('typed in the other tab')
    wrapper.unmount()
    expect(loadDraft(2)).toBe('')
  })
})
