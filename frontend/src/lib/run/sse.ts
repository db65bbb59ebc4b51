// A Server-Sent Events parser for fetch-based readers (EventSource cannot send headers).
// Follows the WHATWG event-stream rules: fields event/data/id/retry, comments, CRLF.

export interface SseMessage {
  event: string
  data: string
  id: string | null
}

export class SseParser {
  private buffer = ''
  private event = ''
  private data: string[] = []
  private id: string | null = null
  private hasData = false

  /** Feed a chunk of text; returns the events it completed. */
  push(chunk: string): SseMessage[] {
    this.buffer += chunk
    const out: SseMessage[] = []
    let start = 0
    for (;;) {
      const nl = this.findNewline(start)
      if (nl === -1) break
      const line = this.buffer.slice(start, nl.index)
      start = nl.index + nl.length
      const message = this.line(line)
      if (message) out.push(message)
    }
    this.buffer = this.buffer.slice(start)
    return out
  }

  private findNewline(from: number): { index: number; length: number } | -1 {
    for (let i = from; i < this.buffer.length; i++) {
      const c = this.buffer[i]
      if (c === '\n') return { index: i, length: 1 }
      if (c === '\r') {
        if (i + 1 >= this.buffer.length) return -1 // wait: "\r\n" may be split across chunks
        return { index: i, length: this.buffer[i + 1] === '\n' ? 2 : 1 }
      }
    }
    return -1
  }

  private line(line: string): SseMessage | null {
    if (line === '') return this.dispatch()
    if (line.startsWith(':')) return null
    const colon = line.indexOf(':')
    const field = colon === -1 ? line : line.slice(0, colon)
    let value = colon === -1 ? '' : line.slice(colon + 1)
    if (value.startsWith(' ')) value = value.slice(1)
    if (field === 'event') this.event = value
    else if (field === 'data') {
      this.data.push(value)
      this.hasData = true
    } else if (field === 'id' && !value.includes('\0')) this.id = value
    return null
  }

  private dispatch(): SseMessage | null {
    const message = this.hasData
      ? { event: this.event || 'message', data: this.data.join('\n'), id: this.id }
      : null
    this.event = ''
    this.id = null // each event carries its own id here; an id-less event is not deduplicated
    this.data = []
    this.hasData = false
    return message
  }
}

/** The per-run integer id of an event: "7", or "run-abc:7" should a server prefix it. */
export function eventNumber(id: string | null | undefined): number | null {
  if (id === null || id === undefined || id === '') return null
  const tail = id.includes(':') ? id.slice(id.lastIndexOf(':') + 1) : id
  const n = Number.parseInt(tail, 10)
  return Number.isFinite(n) ? n : null
}
