import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { ApiError } from '@/api/http'
import { setLocale } from '@/i18n'
import { interruptedHint, readableRequestError, readableRunError } from '@/lib/display/errors'

// Some tests here switch the page to Chinese; the next test, or the next file in this worker
// (isolate: false), starts from the page's English again.
afterEach(() => setLocale('en'))

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

  // the bridge's own sentences for a turn with no real answer (bridge/non_answers.py) and its
  // error summaries (bridge/agent_guard.py): in the page's words, the raw text as details
  const bridgeSentences: [string, RegExp, RegExp][] = [
    ['The model returned an empty answer, also when asked again.', /empty answer/, /空回复/],
    ['The model only reasoned and wrote no answer, also when asked again.', /only thought/, /只进行了推理/],
    ["The model's answer broke off before it ended; the text so far is kept.", /broke off/, /中断/],
    ["The model's answer broke off again and again (its stream broke, or it reached its output limit); the text so far is kept.", /broke off/, /中断/],
    ['The agent stopped after repeated errors: tool failed', /repeated errors/, /反复出错/],
    ['The model did not finish its answer: length', /did not finish/, /没有写完/],
    ['the model endpoint sent data that is not valid JSON (JSONDecodeError)', /could not be read/, /无法解析/],
  ]

  it.each(bridgeSentences)('words the bridge sentence %s', (raw, en, zh) => {
    const e = readableRunError(raw)
    expect(e.text).toMatch(en)
    expect(e.detail).toBe(raw)
    setLocale('zh')
    expect(readableRunError(raw).text).toMatch(zh)
  })

  it('says how long the provider asks to wait', () => {
    const raw = 'HTTP 429: Rate limit reached (the provider asks to retry after 20 s)'
    expect(readableRunError(raw).text).toMatch(/20 s/)
    setLocale('zh')
    expect(readableRunError(raw).text).toMatch(/20 秒/)
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

  it('words the API\'s refusals by their code: the rate limit is "too_many_requests"', () => {
    expect(readableRequestError(new ApiError('Too many requests from this address; try again in a moment.', 429, 'too_many_requests'))).toMatch(/wait a moment/i)
    expect(readableRequestError(new ApiError('5 answers are already running on this server; wait for one to finish', 429, 'too_many_requests'))).toMatch(/5 answers are already running/)
    expect(readableRequestError(new ApiError('The body is larger than 1048576 bytes.', 413, 'payload_too_large'))).toMatch(/at most 1 MB/)
    expect(readableRequestError(new ApiError('message: String should have at most 100000 characters', 422, 'invalid'))).toBe('The message is too long: at most 100,000 characters. Shorten it and try again.')
    expect(readableRequestError(new ApiError('title: String should have at most 255 characters', 422, 'invalid'))).toMatch(/^The title is too long/)
    const busy = readableRequestError(new ApiError('chat session 107 has an active run; stop it first', 409, 'conflict'))
    expect(busy).toMatch(/answering right now/)
    expect(busy).not.toMatch(/107/)
    const stale = readableRequestError(new ApiError("run 3bd9ec3f is not waiting for an answer to 'call_2_0'", 409, 'stale_clarify'))
    expect(stale).toBe('This question was already answered.')
    const current = readableRequestError(new ApiError("This chat's answer is still running: stop it first.", 409, 'run_active'))
    expect(current).toMatch(/answering right now/)
    const bus = readableRequestError(new ApiError('the event bus (Redis) does not answer right now; try again in a moment', 503, 'bus_unavailable'))
    expect(bus).toMatch(/cannot stream right now/)
    const memory = readableRequestError(new ApiError('The Hermes Bridge answered 422: MEMORY.md would hold 2999 characters; the limit is 2200', 409, 'memory_invalid'))
    expect(memory).toBe('Agent notes (MEMORY.md) would hold 2999 characters; at most 2200 fit. Shorten it, then save.')
  })

  it('names no internal ids', () => {
    expect(readableRequestError(new ApiError('chat session 12 is archived; restore it to continue', 409, 'conflict'))).toBe('This chat is archived. Restore it to continue.')
    expect(readableRequestError(new ApiError('message 9 is not an answer; only answers regenerate', 409, 'conflict'))).toBe('This message is not an answer; only answers regenerate')
  })

  it('words them in Chinese on the Chinese page', () => {
    setLocale('zh')
    expect(readableRequestError(new ApiError('Too many requests from this address', 429, 'too_many_requests'))).toContain('请求过多')
    expect(readableRequestError(new ApiError('title: String should have at most 255 characters', 422, 'invalid'))).toContain('标题太长')
  })

  it('says an interrupted reply lost its agent service when the bridge was replaced', () => {
    const raw = 'The agent service stopped answering and was restarted, so this answer ends here; the text so far is kept.'
    expect(interruptedHint(raw)).toMatch(/agent service stopped answering/)
    expect(interruptedHint('The server restarted during this answer')).toMatch(/server restarted/)
    setLocale('zh')
    expect(interruptedHint(raw)).toMatch(/Agent 服务停止响应/)
  })
})
