import { describe, expect, it } from 'vitest'
import { fileSize, filesOf, percent, readyIds, unseenImages, uploading, type Chip } from '@/lib/chat/attachments'

const chip = (fields: Partial<Chip>): Chip => ({
  key: 'k', name: 'a.png', size: 100, isImage: true, state: 'ready', sent: 100, id: 1, error: null, ...fields,
})

describe('attachments in the box', () => {
  it('reads sizes as people do', () => {
    expect([fileSize(512), fileSize(12_345), fileSize(5 * 1024 * 1024)]).toEqual(['512 B', '12 KB', '5.0 MB'])
  })

  it('names a pasted screenshot and keeps a named file', () => {
    const at = new Date('2026-12-03T10:20:30Z')
    const pasted = new File(['x'], 'image.png', { type: 'image/png' })
    const named = new File(['y'], 'notes.txt', { type: 'text/plain' })
    expect(filesOf([pasted, named], at).map((f) => f.name)).toEqual(['screenshot-2026-12-03-10-20-30.png', 'notes.txt'])
  })

  it('sends only uploaded files and waits for the others', () => {
    const chips = [chip({ id: 4 }), chip({ key: 'u', state: 'uploading', id: null, sent: 25 }), chip({ key: 'f', state: 'failed', id: null })]
    expect(readyIds(chips)).toEqual([4])
    expect(uploading(chips)).toBe(true)
    expect(percent(chips[1])).toBe(25)
  })

  it('warns when the model will not see an image', () => {
    expect(unseenImages([chip({})], false)).toBe(true)
    expect(unseenImages([chip({})], true)).toBe(false)
    expect(unseenImages([chip({ isImage: false })], false)).toBe(false)
  })
})
