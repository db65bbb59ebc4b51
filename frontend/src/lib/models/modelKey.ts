// A stored model API key never follows the model to another host: the API removes it when
// the base URL or provider changes without a new key. The form says so before saving.

export interface StoredModel {
  baseUrl: string
  provider: string
  hasApiKey: boolean
}

export interface ModelFormFields {
  baseUrl: string
  provider: string
  apiKey: string
}

export function normalBaseUrl(url: string): string {
  return url.trim().replace(/\/+$/, '')
}

/** True when saving `form` over `stored` will remove the stored key. */
export function keyWillClear(stored: StoredModel | null, form: ModelFormFields): boolean {
  if (!stored?.hasApiKey || form.apiKey.trim()) return false
  return normalBaseUrl(form.baseUrl) !== normalBaseUrl(stored.baseUrl) || form.provider !== stored.provider
}
