import { beforeEach, describe, expect, it } from 'vitest'
import { ApiError } from '@/api/http'
import { setLocale } from '@/i18n'
import { readableRequestError, readableRunError } from '@/lib/errors'

describe('readable errors', () => {
  beforeEach(() => setLocale('en'))

  it('turns a provider 429 into a hint to wait, keeping the raw text as details', () => {
    const raw = "Error code: 429 - {'error': {'message': 'Rate limit reached for requests'}}"
    const e = readableRunError(raw)
    expect(e.text).toMatch(/wait a minute/i)
    expect(e.detail).toBe(raw)
  })

  it('names bad keys, unreachable hosts and server failures', () => {
    expect(readableRunError('Error code: 401 - invalid api key').text).toMatch(/API key/)
    expect(readableRunError('Connection error.').text).toMatch(/could not be reached/)
    expect(readableRunError('Scripted failure: HTTP 500 (#fail directive)').text).toMatch(/server had a problem \(500\)/)
    expect(readableRunError(null).text).toMatch(/could not finish/)
    expect(readableRunError('the bridge went away').text).toBe('The bridge went away')
  })

  it('speaks the page language', () => {
    setLocale('zh')
    expect(readableRunError('429 Too Many Requests').text).toContain('请求过多')
  })

  it('words failed requests', () => {
    expect(readableRequestError(new ApiError('Too many requests from this address', 429, 'rate_limited'))).toMatch(/wait a moment/i)
    expect(readableRequestError(new ApiError('Failed to fetch', 0, 'network'))).toMatch(/cannot be reached/)
    expect(readableRequestError(new ApiError('chat session 9999 not found', 404, 'not_found'))).toMatch(/does not exist/)
    expect(readableRequestError(new ApiError('name must not be empty', 422, 'validation_error'))).toBe('Name must not be empty')
  })
})
