import { describe, expect, it } from 'vitest'
import { hermesVerb, stripHermesDecoration } from '@/lib/run/decoration'

describe('stripHermesDecoration', () => {
  it.each([
    ['(¬‿¬) pondering...', 'pondering...'],
    ['( •_•)>⌐■-■ contemplating...', 'contemplating...'],
    ['( ͡° ͜ʖ ͡°) musing...', 'musing...'],
    ['ಠ_ಠ reasoning...', 'reasoning...'],
    ['(°ロ°) computing...', 'computing...'],
    ['🗜️ Compacting context — 12 messages', 'Compacting context — 12 messages'],
    ['⏳ waiting on gpt-4o — 45s with no response yet…', 'waiting on gpt-4o — 45s with no response yet…'],
    ['❌ API failed after 3 retries', 'API failed after 3 retries'],
    ['Reading the file', 'Reading the file'],
    ['', ''],
  ])('%s → %s', (input, expected) => {
    expect(stripHermesDecoration(input)).toBe(expected)
  })

  it('handles null and unknown faces before a verb', () => {
    expect(stripHermesDecoration(null)).toBe('')
    expect(stripHermesDecoration('(ノಠ益ಠ)ノ彡┻━┻ brainstorming...')).toBe('brainstorming...')
  })

  it('keeps words that merely contain symbols', () => {
    expect(stripHermesDecoration('Searching for "C++" docs 🔍')).toBe('Searching for "C++" docs')
  })
})

describe('hermesVerb', () => {
  it('names hermes\' spinner verbs, not other status lines', () => {
    expect(hermesVerb('reflecting...')).toBe('reflecting')
    expect(hermesVerb('Synthesizing…')).toBe('synthesizing')
    expect(hermesVerb('Compacting context — 40 messages')).toBeNull()
    expect(hermesVerb('dancing...')).toBeNull()
  })
})
