// A model's Test in the page's words: the API's code says what went wrong; only a provider's own
// error text (which no page can translate) is shown as it came.
import { t } from '@/i18n'

export interface TestResultLike {
  ok: boolean
  latencyMs: number
  error?: string | null
  code?: string | null
}

export function testResultText(result: TestResultLike): string {
  if (result.ok) return t('models.testOk', { ms: Math.round(result.latencyMs) })
  switch (result.code) {
    case 'no_answer':
      return t('models.testNoAnswer')
    case 'no_answer_without_v1':
      return `${t('models.testNoAnswer')} ${t('models.testNotV1')}`
    case 'host_refused':
      return t('models.testHostRefused')
    default:
      return t('models.testFailed', { error: result.error ?? '?' })
  }
}
