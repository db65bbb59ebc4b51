// The Models page form: what it starts from and what it sends (docs/contracts.md, "Models").
import type { Model, ModelCreate } from '@/api/schema'

export type Provider = NonNullable<ModelCreate['provider']>
export type ReasoningEffort = NonNullable<ModelCreate['reasoningEffort']>

export interface ModelForm {
  name: string
  provider: Provider
  baseUrl: string
  modelName: string
  contextLength: number | null
  maxOutputTokens: number | null
  temperature: number | null
  reasoningEffort: ReasoningEffort | null
  fallbackModelId: number | null
  /** Whether it sees images; null: its provider's default. */
  vision: boolean | null
  isDefault: boolean
  /** May be chosen to write chats' summaries (context compression). */
  canSummarize: boolean
  apiKey: string
}

/** Public endpoints the API fills in when a named provider is saved without a base URL. */
export const BASE_URL_HINTS: Record<Provider, string> = {
  'openai-compatible': 'http://127.0.0.1:8000/v1',
  openai: 'https://api.openai.com/v1',
  anthropic: 'https://api.anthropic.com',
  openrouter: 'https://openrouter.ai/api/v1',
  ollama: 'http://127.0.0.1:11434/v1',
}

export const PROVIDERS: { label: string; value: Provider }[] = [
  { label: 'OpenAI-compatible', value: 'openai-compatible' },
  { label: 'OpenAI', value: 'openai' },
  { label: 'Anthropic', value: 'anthropic' },
  { label: 'OpenRouter', value: 'openrouter' },
  { label: 'Ollama', value: 'ollama' },
]

export const EFFORTS: ReasoningEffort[] = ['none', 'minimal', 'low', 'medium', 'high', 'xhigh']

/** hermes sends no temperature to Anthropic. */
export function takesTemperature(provider: Provider): boolean {
  return provider !== 'anthropic'
}

export function blankForm(): ModelForm {
  return {
    name: '', provider: 'openai-compatible', baseUrl: '', modelName: '', contextLength: null, maxOutputTokens: null,
    temperature: null, reasoningEffort: null, fallbackModelId: null, vision: null, isDefault: false, canSummarize: false, apiKey: '',
  }
}

export function formOf(model: Model): ModelForm {
  const { name, provider, baseUrl, modelName, contextLength, maxOutputTokens, temperature, reasoningEffort, fallbackModelId, isDefault } = model
  const canSummarize = model.canSummarize ?? false
  const vision = model.vision ?? null
  return { name, provider, baseUrl, modelName, contextLength, maxOutputTokens, temperature, reasoningEffort, fallbackModelId, vision, isDefault, canSummarize, apiKey: '' }
}

/** The request body. No key keeps the stored one; no context length takes the default; an empty
 * base URL takes the provider's public endpoint; emptied options are cleared on edit (null)
 * and left out on create. Temperature is never sent for Anthropic. */
export function bodyOf(form: ModelForm, editing: boolean): ModelCreate {
  const { apiKey, contextLength, baseUrl, maxOutputTokens, temperature, reasoningEffort, fallbackModelId, vision, ...rest } = form
  const options: Partial<ModelCreate> = {
    maxOutputTokens,
    temperature: takesTemperature(form.provider) ? temperature : null,
    reasoningEffort,
    fallbackModelId,
    vision,
  }
  const kept = Object.fromEntries(Object.entries(options).filter(([, v]) => editing || v !== null)) as Partial<ModelCreate>
  return {
    ...rest,
    ...kept,
    ...(baseUrl.trim() ? { baseUrl } : {}),
    ...(apiKey ? { apiKey } : {}),
    ...(contextLength ? { contextLength } : {}),
  }
}
