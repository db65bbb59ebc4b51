// Download a session export through fetch, so the bearer token goes with it (a plain link
// could not carry the header), and save it under the server's file name.
import type { ExportBranch, ExportFormat } from '@/api/chat'
import { chatApi } from '@/api/chat'
import { ApiError, authFetch } from '@/api/http'
import { notifyError } from '@/lib/browser/notify'

function fileName(response: Response, fallback: string): string {
  const disposition = response.headers.get('Content-Disposition') ?? ''
  return /filename="?([^";]+)"?/.exec(disposition)?.[1] ?? fallback
}

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

export function useExportDownload() {
  async function download(sessionId: number, format: ExportFormat, branch: ExportBranch = 'active'): Promise<boolean> {
    try {
      const response = await authFetch(chatApi.exportUrl(sessionId, format, branch))
      if (!response.ok) throw new ApiError(`${response.status}`, response.status, 'export')
      save(await response.blob(), fileName(response, `chat-${sessionId}.${format}`))
      return true
    } catch (err) {
      notifyError(err)
      return false
    }
  }
  return { download }
}
