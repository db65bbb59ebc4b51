import { describe, expect, it } from 'vitest'
import { eventNumber, SseParser } from '@/lib/run/sse'

describe('SseParser', () => {
  it('parses events with id, name and data', () => {
    const p = new SseParser()
    const out = p.push('id: 3\nevent: node_stream\ndata: {"a":1}\n\n')
    expect(out).toEqual([{ id: '3', event: 'node_stream', data: '{"a":1}' }])
  })

  it('joins multi-line data, skips comments, defaults the event name', () => {
    const p = new SseParser()
    expect(p.push(': ping\n\ndata: one\ndata: two\n\n')).toEqual([{ id: null, event: 'message', data: 'one\ntwo' }])
  })

  it('handles chunks split anywhere, including inside CRLF', () => {
    const text = 'id: 1\r\nevent: x\r\ndata: hello\r\n\r\nid: 2\r\nevent: y\r\ndata: world\r\n\r\n'
    for (let cut = 1; cut < text.length; cut++) {
      const p = new SseParser()
      const out = [...p.push(text.slice(0, cut)), ...p.push(text.slice(cut))]
      expect(out.map((m) => [m.id, m.event, m.data])).toEqual([
        ['1', 'x', 'hello'],
        ['2', 'y', 'world'],
      ])
    }
  })

  it('does not carry an id over to the next event', () => {
    const p = new SseParser()
    const out = p.push('id: 5\ndata: a\n\ndata: b\n\n')
    expect(out[1].id).toBeNull()
  })

  it('ignores an event with no data and a field without colon', () => {
    const p = new SseParser()
    expect(p.push('event: only\n\ndata\n\n')).toEqual([{ id: null, event: 'message', data: '' }])
  })
})

describe('eventNumber', () => {
  it('reads plain and prefixed ids', () => {
    expect(eventNumber('7')).toBe(7)
    expect(eventNumber('run-1:12')).toBe(12)
    expect(eventNumber(null)).toBeNull()
    expect(eventNumber('x')).toBeNull()
  })
})
