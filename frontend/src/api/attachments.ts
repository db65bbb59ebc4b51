// A chat's attachments: upload (the file's bytes as they are, with progress), remove before
// sending, and their bytes for the page (fetched with the sign-in, shown through object URLs).
import { authHeaders } from './auth'
import { ApiError, authFetch, http, query } from './http'
import { signInAgain } from '@/lib/accounts/session'
import type { Attachment } from './schema'

const base = (sessionId: number) => `/api/chat/sessions/${sessionId}/attachments`

export interface Upload {
  done: Promise<Attachment>
  abort: () => void
}

/** XMLHttpRequest, not fetch: only it reports how much of a large body has gone. */
export function uploadAttachment(sessionId: number, file: File, progress: (sent: number) => void): Upload {
  const xhr = new XMLHttpRequest()
  const done = new Promise<Attachment>((resolve, reject) => {
    xhr.open('POST', `${base(sessionId)}${query({ name: file.name })}`)
    xhr.setRequestHeader('Content-Type', 'application/octet-stream')
    for (const [name, value] of Object.entries(authHeaders())) xhr.setRequestHeader(name, value)
    xhr.upload.onprogress = (event) => progress(event.loaded)
    xhr.onload = () => {
      if (xhr.status === 201) return resolve(JSON.parse(xhr.responseText) as Attachment)
      let message = `${xhr.status} ${xhr.statusText}`
      let code = `http_${xhr.status}`
      try {
        const body = JSON.parse(xhr.responseText)
        message = String(body?.error?.message ?? message)
        code = String(body?.error?.code ?? code)
      } catch {
        /* not JSON */
      }
      // with accounts a 401 goes to the sign-in page (the failure then stays quiet)
      if (xhr.status === 401) void signInAgain()
      reject(new ApiError(message, xhr.status, code))
    }
    xhr.onerror = () => reject(new ApiError('network error', 0, 'network'))
    xhr.onabort = () => reject(new ApiError('cancelled', 0, 'aborted'))
    xhr.send(file)
  })
  return { done, abort: () => xhr.abort() }
}

export const attachmentsApi = {
  /** The files in the chat's question box, not sent yet (oldest first). */
  unsent: (sessionId: number) => http.get<Attachment[]>(base(sessionId)),
  remove: (sessionId: number, id: number) => http.delete<void>(`${base(sessionId)}/${id}`),
  url: (sessionId: number, id: number) => `${base(sessionId)}/${id}`,
  thumbnailUrl: (sessionId: number, id: number) => `${base(sessionId)}/${id}/thumbnail`,
  /** The bytes at `url` as an object URL (the caller revokes it). */
  async objectUrl(url: string): Promise<string> {
    const response = await authFetch(url)
    if (!response.ok) throw new ApiError(`${response.status}`, response.status, `http_${response.status}`)
    return URL.createObjectURL(await response.blob())
  },
}
