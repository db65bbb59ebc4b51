import { describe, expect, it } from 'vitest'
import { compactTokens, contextMeter, latestMeter, statRows, usageLine } from '@/lib/run/usage'

describe('usage', () => {
  it('writes token counts the way hermes shows them', () => {
    expect([compactTokens(950), compactTokens(1700), compactTokens(131072), compactTokens(2_100_000)]).toEqual([
      '950',
      '1.7k',
      '131.1k',
      '2.1M',
    ])
  })

  it('reads an answer usage line, summariser included, and nothing from an empty usage', () => {
    const line = usageLine({ promptTokens: 4321, completionTokens: 12, reasoningTokens: 5, apiCalls: 2, summaryPromptTokens: 100, summaryCompletionTokens: 20 })
    expect(line).toEqual({ prompt: 4321, completion: 12, reasoning: 5, summary: 120, calls: 2 })
    expect(usageLine({})).toBeNull()
    expect(usageLine(null)).toBeNull()
  })

  it('grades the context meter towards compaction', () => {
    expect(contextMeter({ contextTokens: 1700, contextLength: 131072 })).toMatchObject({ label: '1.7k/131.1k', level: 'ok' })
    expect(contextMeter({ contextTokens: 80000, contextLength: 131072 })?.level).toBe('warn')
    expect(contextMeter({ contextTokens: 100000, contextLength: 131072 })?.level).toBe('near')
    expect(contextMeter({ contextTokens: 5 })).toBeNull()
  })

  it('takes the meter from the latest answer that has one', () => {
    const messages = [
      { role: 'ASSISTANT', usage: { contextTokens: 10, contextLength: 64000 } },
      { role: 'USER', usage: null },
      { role: 'ASSISTANT', usage: null },
    ]
    expect(latestMeter(messages)?.tokens).toBe(10)
    expect(latestMeter([])).toBeNull()
  })
})

describe('statRows', () => {
  it('spreads usage and writes the context as tokens/length', () => {
    const rows = statRows({ messages: 4, usage: { turns: 2, promptTokens: 11000 }, context: { tokens: 6679, length: 131072 } })
    expect(rows).toEqual([
      ['messages', 4],
      ['usage.turns', 2],
      ['usage.promptTokens', 11000],
      ['context', '6.7k/131.1k'],
    ])
    expect(statRows({ context: null })).toEqual([['context', null]])
  })
})
