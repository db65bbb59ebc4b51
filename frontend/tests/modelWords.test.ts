import { afterEach, describe, expect, it } from 'vitest'
import { setLocale } from '@/i18n'
import { fieldErrors } from '@/lib/display/errors'
import { modelDisplayName, BUILTIN_DEMO_NAME } from '@/lib/models/displayName'
import { testResultText } from '@/lib/models/testResult'

// Some tests here switch the page to Chinese; the next test, or the next file in this worker
// (isolate: false), starts from the page's English again.
afterEach(() => setLocale('en'))

describe('the Models page in the page language', () => {
  it('says each refused field in its words, the API words for an unknown code', () => {
    setLocale('zh')
    const err = {
      fields: [
        { field: 'baseUrl', code: 'url_scheme', message: 'must be an http:// or https:// URL with a host' },
        { field: 'maxOutputTokens', code: 'less_than_equal', message: 'Input should be less than or equal to 1000000', limit: 1_000_000 },
        { field: 'name', code: 'something_new', message: 'must be nicer' },
      ],
    }
    expect(fieldErrors(err)).toEqual({
      baseUrl: '必须是带主机名的 http:// 或 https:// 地址',
      maxOutputTokens: '最多 1,000,000',
      name: 'Must be nicer',
    })
    expect(fieldErrors(new Error('no fields'))).toEqual({})
  })
  it('tells a failed Test by its code, with the /v1 hint only when the URL lacks it', () => {
    setLocale('en')
    expect(testResultText({ ok: false, latencyMs: 3, code: 'no_answer', error: 'No answer from…' })).not.toContain('/v1')
    expect(testResultText({ ok: false, latencyMs: 3, code: 'no_answer_without_v1' })).toContain('usually end in /v1')
    expect(testResultText({ ok: false, latencyMs: 3, code: 'provider_error', error: 'HTTP 401: bad key' })).toContain('HTTP 401: bad key')
    expect(testResultText({ ok: true, latencyMs: 12.4 })).toContain('12 ms')
  })
  it('names the built-in demo model in the page language unless it was renamed', () => {
    setLocale('zh')
    expect(modelDisplayName({ name: BUILTIN_DEMO_NAME, isBuiltin: true })).toBe('脚本演示模型（离线，不是真正的大模型）')
    expect(modelDisplayName({ name: 'Our demo', isBuiltin: true })).toBe('Our demo')
    setLocale('en')
  })
})
