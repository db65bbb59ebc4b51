import { describe, expect, it } from 'vitest'
import { keyWillClear } from '@/lib/models/modelKey'

const stored = { baseUrl: 'https://api.openai.com/v1', provider: 'openai', hasApiKey: true }

describe('keyWillClear', () => {
  it('warns when the host changes without a new key', () => {
    expect(keyWillClear(stored, { baseUrl: 'https://evil.example/v1', provider: 'openai', apiKey: '' })).toBe(true)
  })
  it('warns when the provider changes without a new key', () => {
    expect(keyWillClear(stored, { baseUrl: stored.baseUrl, provider: 'anthropic', apiKey: '' })).toBe(true)
  })
  it('is quiet when a new key comes with the change, or nothing moved', () => {
    expect(keyWillClear(stored, { baseUrl: 'https://evil.example/v1', provider: 'openai', apiKey: 'sk-new' })).toBe(false)
    expect(keyWillClear(stored, { baseUrl: 'https://api.openai.com/v1/ ', provider: 'openai', apiKey: '' })).toBe(false)
  })
  it('is quiet for a new model or one without a key', () => {
    expect(keyWillClear(null, { baseUrl: 'x', provider: 'openai', apiKey: '' })).toBe(false)
    expect(keyWillClear({ ...stored, hasApiKey: false }, { baseUrl: 'x', provider: 'openai', apiKey: '' })).toBe(false)
  })
})
