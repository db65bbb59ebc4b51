import { describe, expect, it } from 'vitest'
import { clampLines, parseStructured, previewArgs } from '@/lib/display/json'

describe('tool values', () => {
  it('parses objects and JSON text, keeps other text as text', () => {
    expect(parseStructured({ a: 1 })).toEqual({ json: true, value: { a: 1 } })
    expect(parseStructured(' [1, 2] ')).toEqual({ json: true, value: [1, 2] })
    expect(parseStructured('{not json')).toEqual({ json: false, text: '{not json' })
    expect(parseStructured('"a string"')).toEqual({ json: false, text: '"a string"' })
    expect(parseStructured(null)).toEqual({ json: false, text: '' })
  })

  it('previews arguments on one line', () => {
    expect(previewArgs({ q: 'cats', limit: 5, opts: { a: 1 }, ids: [1, 2] })).toBe('q: "cats", limit: 5, opts: {…}, ids: [2]')
    expect(previewArgs('line one\n  line two')).toBe('line one line two')
    expect(previewArgs({ text: 'x'.repeat(200) }, 20)).toHaveLength(20)
  })

  it('clamps long text to its first lines', () => {
    const text = Array.from({ length: 50 }, (_, i) => `l${i}`).join('\n')
    const c = clampLines(text, 3)
    expect(c).toMatchObject({ shown: 'l0\nl1\nl2', total: 50, clamped: true })
    expect(clampLines('a\nb', 3).clamped).toBe(false)
  })
})

describe('terminal colour codes', () => {
  it('are taken out of text results, which stay text', () => {
    expect(parseStructured('\x1b[1;31mFAILED\x1b[0m test_y\n\x1b[32m3 passed\x1b[0m')).toEqual({ json: false, text: 'FAILED test_y\n3 passed' })
  })
})
