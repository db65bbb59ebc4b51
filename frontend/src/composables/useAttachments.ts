// The files in the question box: each one uploads as soon as it is added (with its progress),
// can be removed before sending (and is then deleted on the server), and its id goes with the
// question. Images get a local preview while they upload. The files stay on the server until sent
// or removed: a reload, or a visit to another chat and back, shows them again (`restore`).
import { computed, onScopeDispose, ref } from 'vue'
import { attachmentsApi, uploadAttachment, type Upload } from '@/api/attachments'
import type { Attachment } from '@/api/schema'
import { readyIds, uploading, type Chip } from '@/lib/chat/attachments'

export interface BoxChip extends Chip {
  preview: string | null
  saved: Attachment | null
}

let counter = 0

export function useAttachments(sessionOf: () => Promise<number | null>) {
  const chips = ref<BoxChip[]>([])
  const uploads = new Map<string, Upload>()
  let sessionId: number | null = null

  function patch(key: string, change: Partial<BoxChip>): void {
    chips.value = chips.value.map((c) => (c.key === key ? { ...c, ...change } : c))
  }

  async function add(files: File[]): Promise<void> {
    if (!files.length) return
    const session = await sessionOf()
    if (session === null) return
    sessionId = session
    for (const file of files) {
      const key = `file-${++counter}`
      const isImage = file.type.startsWith('image/')
      const preview = isImage ? URL.createObjectURL(file) : null
      chips.value = [
        ...chips.value,
        { key, name: file.name, size: file.size, isImage, state: 'uploading', sent: 0, id: null, error: null, preview, saved: null },
      ]
      const upload = uploadAttachment(session, file, (sent) => patch(key, { sent }))
      uploads.set(key, upload)
      upload.done
        .then((saved) => patch(key, { state: 'ready', id: saved.id, name: saved.name, sent: file.size, isImage: saved.kind === 'image', saved }))
        .catch((err: Error) => patch(key, { state: 'failed', error: err.message }))
        .finally(() => uploads.delete(key))
    }
  }

  function remove(key: string): void {
    const chip = chips.value.find((c) => c.key === key)
    if (!chip) return
    uploads.get(key)?.abort()
    if (chip.preview) URL.revokeObjectURL(chip.preview)
    chips.value = chips.value.filter((c) => c.key !== key)
    if (chip.id !== null && sessionId !== null) void attachmentsApi.remove(sessionId, chip.id).catch(() => undefined)
  }

  /** The chat's files not sent yet, back in its box (after a reload or a visit elsewhere): only
   * into a box that is still empty when they arrive, so a file being added now is never twice. */
  async function restore(session: number): Promise<void> {
    let unsent: Attachment[]
    try {
      unsent = await attachmentsApi.unsent(session)
    } catch {
      return // the chat is gone or unreachable: its page says so
    }
    if (chips.value.length || !unsent.length) return
    sessionId = session
    chips.value = unsent.map((saved) => ({
      key: `file-${++counter}`,
      name: saved.name,
      size: saved.size,
      isImage: saved.kind === 'image',
      state: 'ready',
      sent: saved.size,
      id: saved.id,
      error: null,
      preview: null,
      saved,
    }))
    for (const chip of chips.value) {
      if (!chip.saved?.hasThumbnail) continue
      const key = chip.key
      attachmentsApi
        .objectUrl(attachmentsApi.thumbnailUrl(session, chip.saved.id))
        .then((preview) => {
          if (chips.value.some((c) => c.key === key)) patch(key, { preview })
          else URL.revokeObjectURL(preview)
        })
        .catch(() => undefined)
    }
  }

  /** Another chat is shown: the box empties here, its files stay on the server for `restore`
   * (an upload still on its way is cancelled). */
  function leave(): void {
    for (const upload of uploads.values()) upload.abort()
    clear()
  }

  /** The box was sent: its chips go (their files now belong to the question). */
  function clear(): void {
    for (const chip of chips.value) if (chip.preview) URL.revokeObjectURL(chip.preview)
    chips.value = []
  }

  onScopeDispose(() => {
    for (const upload of uploads.values()) upload.abort()
    clear()
  })

  return {
    chips,
    add,
    remove,
    clear,
    restore,
    leave,
    ids: computed(() => readyIds(chips.value)),
    saved: computed(() => chips.value.flatMap((c) => (c.saved ? [c.saved] : []))),
    busy: computed(() => uploading(chips.value)),
  }
}
