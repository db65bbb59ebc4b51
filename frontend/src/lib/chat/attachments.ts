// What the box holds before sending: files being uploaded, uploaded, or refused (pure).

export type ChipState = 'uploading' | 'ready' | 'failed'

export interface Chip {
  key: string
  name: string
  size: number
  isImage: boolean
  state: ChipState
  sent: number
  id: number | null
  error: string | null
}

/** "12 KB", "3.4 MB": a file's size as people read it. */
export function fileSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`
  if (bytes < 1024 * 1024) return `${Math.round(bytes / 1024)} KB`
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`
}

/** The upload's progress, 0 to 100. */
export function percent(chip: Chip): number {
  return chip.size ? Math.min(100, Math.round((chip.sent * 100) / chip.size)) : 100
}

/** Files a drop, a paste or the picker brings (a pasted screenshot has no name: give it one). */
export function filesOf(list: FileList | File[] | null | undefined, now = new Date()): File[] {
  return Array.from(list ?? []).map((file) => {
    if (file.name && file.name !== 'image.png') return file
    const stamp = now.toISOString().slice(0, 19).replace(/[:T]/g, '-')
    const extension = file.type.split('/')[1] || 'png'
    return new File([file], `screenshot-${stamp}.${extension}`, { type: file.type })
  })
}

export const readyIds = (chips: Chip[]): number[] =>
  chips.filter((c) => c.state === 'ready' && c.id !== null).map((c) => c.id as number)

export const uploading = (chips: Chip[]): boolean => chips.some((c) => c.state === 'uploading')

/** The model will not see these images: the page says so before sending. */
export const unseenImages = (chips: Chip[], seesImages: boolean): boolean =>
  !seesImages && chips.some((c) => c.isImage && c.state !== 'failed')
