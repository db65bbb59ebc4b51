import { describe, expect, it } from 'vitest'
import type { Model } from '@/api/schema'
import { blankForm, bodyOf, formOf } from '@/lib/models/modelForm'

const model: Model = {
  id: 3, name: 'Claude', provider: 'anthropic', baseUrl: 'https://api.anthropic.com', modelName: 'claude-sonnet-4-5',
  contextLength: 200000, maxOutputTokens: 8000, temperature: null, reasoningEffort: 'high', fallbackModelId: 1,
  isDefault: false, isBuiltin: false, canSummarize: false, hasApiKey: true, apiKeyLast4: 'abcd', shared: true, createdAt: '2026-11-30T00:00:00Z',
  vision: null, seesImages: true,
}

describe('model form', () => {
  it('creates with only what was filled in', () => {
    const form = { ...blankForm(), name: 'Local', baseUrl: 'http://127.0.0.1:8000/v1', modelName: 'qwen', maxOutputTokens: 2048 }
    expect(bodyOf(form, false)).toEqual({
      name: 'Local', provider: 'openai-compatible', modelName: 'qwen', isDefault: false, canSummarize: false,
      baseUrl: 'http://127.0.0.1:8000/v1', maxOutputTokens: 2048,
    })
  })

  it('leaves out an empty base URL so a named provider gets its public endpoint', () => {
    const body = bodyOf({ ...blankForm(), name: 'OR', provider: 'openrouter', modelName: 'x/y' }, false)
    expect(body).not.toHaveProperty('baseUrl')
  })

  it('clears emptied options on edit and keeps the stored key', () => {
    const form = { ...formOf(model), maxOutputTokens: null }
    const body = bodyOf(form, true)
    expect(body).toMatchObject({ maxOutputTokens: null, reasoningEffort: 'high', fallbackModelId: 1, temperature: null })
    expect(body).not.toHaveProperty('apiKey')
  })

  it('never sends a temperature to Anthropic', () => {
    expect(bodyOf({ ...formOf(model), temperature: 0.5 }, true).temperature).toBeNull()
    expect(bodyOf({ ...formOf(model), provider: 'openai', temperature: 0.5 }, true).temperature).toBe(0.5)
  })
})
