import { describe, expect, it } from 'vitest'
import { formatDuration, prettyText, prettyValue } from '@/lib/display/prettyJson'

describe('prettyJson', () => {
  it('indents arguments and JSON results', () => {
    expect(prettyValue({ q: 'Lyon', n: [1] })).toBe('{\n  "q": "Lyon",\n  "n": [\n    1\n  ]\n}')
    expect(prettyText('{"ok":true}')).toBe('{\n  "ok": true\n}')
  })

  it('leaves other text and broken JSON as they came', () => {
    expect(prettyText('1. Fourvière')).toBe('1. Fourvière')
    expect(prettyText('{"cut": "abc')).toBe('{"cut": "abc')
    expect(prettyValue('plain preview')).toBe('plain preview')
    expect(prettyValue(null)).toBe('')
  })

  it('formats durations', () => {
    expect(formatDuration(340)).toBe('340 ms')
    expect(formatDuration(1250)).toBe('1.3 s')
    expect(formatDuration(null)).toBe('')
  })
})
