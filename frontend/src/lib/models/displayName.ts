// The name a model is shown by: the built-in demo's in the page's language, unless the operator
// renamed it (then their words); every other model as it was named.
import { t } from '@/i18n'

/** The name the server gives the built-in demo (models/service.py SCRIPTED_MODEL_NAME). */
export const BUILTIN_DEMO_NAME = 'Scripted demo model (offline, not a real LLM)'

export function modelDisplayName(model: { name: string; isBuiltin: boolean }): string {
  return model.isBuiltin && model.name === BUILTIN_DEMO_NAME ? t('models.demoName') : model.name
}
