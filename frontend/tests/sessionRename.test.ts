// A rename the server refuses (a title over its 255 characters, the network) keeps the edit
// open with what was typed, marked as wrong, instead of closing the box and losing it.
import { mount } from '@vue/test-utils'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { nextTick } from 'vue'
import type { Session } from '@/api/schema'
import { i18n, setLocale } from '@/i18n'
import ChatSessionList from '@/views/chat/ChatSessionList.vue'

const session: Session = {
  id: 7, sessionUuid: 'u7', title: 'Old title', modelId: null, skillFolder: null, toolsets: null, approvals: [], mcpOff: [], compressionModelId: null, hermesSession: null,
  status: 'ACTIVE', createdAt: '', updatedAt: '', lastMessageAt: null, lastSummarizedAt: null, lastMessagePreview: null, match: null,
  hasActiveRun: false, hasPendingClarify: false, activeRunId: null,
}

type Done = (ok: boolean) => void

function mountList() {
  const renames: [number, string, Done][] = []
  const wrapper = mount(ChatSessionList, {
    props: {
      items: [session], currentId: 7, hasMore: false, loading: false, isRunning: () => false, isWaiting: () => false,
      query: '', archived: false,
      onRename: (id: number, title: string, done?: Done) => renames.push([id, title, done ?? (() => undefined)]),
    },
    global: { plugins: [i18n] },
    attachTo: document.body,
  })
  const input = () => wrapper.find('[data-testid="session-rename-input"] input')
  return { wrapper, renames, input }
}

async function rename(list: ReturnType<typeof mountList>, title: string): Promise<void> {
  await list.wrapper.get('[data-testid="session-title"]').trigger('dblclick')
  await nextTick()
  await list.input().setValue(title)
  await list.input().trigger('keydown', { key: 'Enter' })
}

describe('ChatSessionList rename', () => {
  beforeEach(() => setLocale('en'))
  afterEach(() => (document.body.innerHTML = ''))

  it('keeps the edit open, with its text, when the server refuses it', async () => {
    const list = mountList()
    const long = 'x'.repeat(300)
    await rename(list, long)
    expect(list.renames.map(([id, title]) => [id, title])).toEqual([[7, long]])
    list.renames[0][2](false)
    await nextTick()
    await nextTick()
    expect(list.input().exists()).toBe(true)
    expect((list.input().element as HTMLInputElement).value).toBe(long)
    expect(list.input().attributes('aria-invalid')).toBe('true')
    expect(document.activeElement).toBe(list.input().element) // shorten it and press Enter again

    await list.input().setValue('x'.repeat(255))
    expect(list.input().attributes('aria-invalid')).toBeUndefined()
    await list.input().trigger('keydown', { key: 'Enter' })
    list.renames[1][2](true)
    await nextTick()
    expect(list.input().exists()).toBe(false)
  })

  it('closes the box when the rename is saved', async () => {
    const list = mountList()
    await rename(list, 'New title')
    list.renames[0][2](true)
    await nextTick()
    expect(list.input().exists()).toBe(false)
  })
})
