// A megabyte of thinking streamed in small pieces: each piece costs what it adds. Taking it out
// of the whole text again kept every earlier copy of the whole alive (a crashed tab: Node ran
// out of memory on 10,000 pieces of 100 characters).
import { describe, expect, it } from 'vitest'
import { applyNodeStream, emptyRunState, type RunState } from '@/lib/run/runState'

describe('a long thinking stream', () => {
  it('folds a megabyte of thinking in 10,000 pieces into one step', () => {
    const piece = 'x'.repeat(99) + ' '
    let s: RunState = emptyRunState('r1')
    for (let i = 0; i < 10_000; i++) s = applyNodeStream(s, { kind: 'thinking', content: piece })
    expect(s.thinking).toHaveLength(1_000_000)
    expect(s.steps).toHaveLength(1)
    expect(s.steps[0].thinking).toHaveLength(1_000_000)
  })
})
