// The file name a download is saved under, from its Content-Disposition header (RFC 6266): the
// UTF-8 `filename*` (a chat's title in any script) before the plain `filename`.

export function downloadName(disposition: string | null, fallback: string): string {
  const header = disposition ?? ''
  const encoded = /filename\*\s*=\s*UTF-8''([^;\s]+)/i.exec(header)?.[1]
  if (encoded) {
    try {
      return decodeURIComponent(encoded)
    } catch {
      /* not valid percent-encoding: the plain name below */
    }
  }
  return /filename\s*=\s*"([^"]+)"/i.exec(header)?.[1] ?? /filename\s*=\s*([^;\s]+)/i.exec(header)?.[1] ?? fallback
}
