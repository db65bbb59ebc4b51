// What an MCP tool returned besides text (events contract `ToolMedia`): images shown in place,
// other files offered as a download; a file too large to travel only named with its size.
import type { ToolMedia } from '@/api/schema'

/** A data: URL for an image the page may show (img-src allows data:), else null. */
export function imageSource(item: ToolMedia): string | null {
  if (item.kind !== 'image' || !item.data || !/^image\/(png|jpeg|gif|webp|bmp)$/.test(item.mime ?? '')) return null
  return `data:${item.mime};base64,${item.data}`
}

/** The file's bytes as a Blob (to download), or null when they did not travel. */
export function blobOf(item: ToolMedia): Blob | null {
  if (!item.data) return null
  const bytes = Uint8Array.from(atob(item.data), (ch) => ch.charCodeAt(0))
  return new Blob([bytes], { type: item.mime || 'application/octet-stream' })
}

export function byteSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`
}
