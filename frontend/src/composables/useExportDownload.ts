// Download a session export through fetch, so the bearer token goes with it (a plain link
// could not carry the header), and save it under the server's file name (the chat's title).
import type { ExportBranch, ExportFormat } from '@/api/chat'
import { chatApi } from '@/api/chat'
import { ApiError, authFetch } from '@/api/http'
import { downloadName } from '@/lib/browser/download'
import { notifyError } from '@/lib/browser/notify'

function save(blob: Blob, name: string): void {
  const url = URL.createObjectURL(blob)
  const a = document.createElement('a')
  a.href = url
  a.download = name
  document.body.appendChild(a)
  a.click()
  a.remove()
  setTimeout(() => URL.revokeObjectURL(url), 10_000)
}

/** Fetch `url` with the sign-in and save it under the server's file name. */
export async function downloadFile(url: string, fallback: string): Promise<boolean> {
  try {
    const response = await authFetch(url)
    if (!response.ok) throw new ApiError(`${response.status}`, response.status, 'download')
    save(await response.blob(), downloadName(response.headers.get('Content-Disposition'), fallback))
    return true
  } catch (err) {
    notifyError(err)
    return false
  }
}

export function useExportDownload() {
  const download = (sessionId: number, format: ExportFormat, branch: ExportBranch = 'active') =>
    downloadFile(chatApi.exportUrl(sessionId, format, branch), `chat-${sessionId}.${format}`)
  return { download }
}
