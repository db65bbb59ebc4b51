import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { setLocale } from '@/i18n'
import en from '@/i18n/en'
import zh from '@/i18n/zh'
import { ApiError, request } from '@/api/http'
import { account, applyStatus, isAdmin, redirectFor, safeNext, signInPath, type AccountState } from '@/lib/accounts/account'
import { navigation, signInAgain } from '@/lib/accounts/session'
import { invitationLink, passwordProblem, usagePerPerson } from '@/lib/accounts/forms'
import { AUDIT_ACTIONS, auditDetail } from '@/lib/accounts/audit'
import { ACCOUNT_CODES, accountCodeText, readableRequestError } from '@/lib/display/errors'
import type { AuthStatus, UsageRow } from '@/api/schema'

const alice = { id: 1, username: 'alice', role: 'admin' as const, mode: 'accounts' as const }
const bob = { id: 2, username: 'bob', role: 'user' as const, mode: 'accounts' as const }

function state(over: Partial<AccountState>): AccountState {
  return { loaded: true, mode: 'accounts', authenticated: false, user: null, signup: 'off', singleSignOn: null, leaving: false, ...over }
}
const route = (fullPath: string, meta: { public?: boolean; admin?: boolean } = {}) => ({ fullPath, meta })

describe('where the page may go', () => {
  it('changes nothing without accounts (the token or the machine user), but has no sign-in pages', () => {
    const single = state({ mode: 'single', authenticated: true })
    expect(redirectFor(route('/chat/3'), single)).toBeNull()
    expect(redirectFor(route('/tools', { admin: true }), single)).toBeNull()
    expect(redirectFor(route('/signin', { public: true }), single)).toBe('/chat')
    expect(isAdmin(single)).toBe(true)
  })

  it('sends a person who is not signed in to /signin, and back afterwards', () => {
    const out = state({})
    expect(redirectFor(route('/chat/3?x=1'), out)).toBe('/signin?next=%2Fchat%2F3%3Fx%3D1')
    expect(redirectFor(route('/chat'), out)).toBe('/signin')
    expect(redirectFor(route('/signin', { public: true }), out)).toBeNull()
    expect(redirectFor(route('/invite/abc', { public: true }), out)).toBeNull()
  })

  it('keeps the Admin and Tools pages for administrators, and the sign-in page for those signed out', () => {
    const user = state({ authenticated: true, user: bob })
    const admin = state({ authenticated: true, user: alice })
    expect(redirectFor(route('/admin', { admin: true }), user)).toBe('/chat')
    expect(redirectFor(route('/tools', { admin: true }), user)).toBe('/chat')
    expect(redirectFor(route('/admin', { admin: true }), admin)).toBeNull()
    expect(redirectFor(route('/signin?next=/models', { public: true }), admin)).toBe('/chat')
    expect(redirectFor(route('/invite/abc', { public: true }), admin)).toBeNull()
    expect(isAdmin(user)).toBe(false)
    expect(isAdmin(admin)).toBe(true)
  })

  it('comes back only to a path of this page, never to another site or a sign-in page', () => {
    expect(safeNext('/chat/7?q=1#m')).toBe('/chat/7?q=1#m')
    for (const bad of ['//evil.example/x', '/\\evil.example', 'https://evil.example', 'javascript:alert(1)', '', null, 42, '/signin?next=/x', '/invite/t', '/a\nb'])
      expect(safeNext(bad)).toBe('/chat')
    expect(signInPath('/models')).toBe('/signin?next=%2Fmodels')
    expect(signInPath('//evil.example')).toBe('/signin')
  })
})

describe('a 401 with accounts', () => {
  const assign = vi.fn()
  beforeEach(() => {
    assign.mockReset()
    vi.spyOn(navigation, 'assign').mockImplementation(assign)
    vi.spyOn(navigation, 'here').mockReturnValue('/chat/5')
    account.leaving = false
  })
  afterEach(() => {
    account.leaving = false
    applyStatus({ authRequired: false, authenticated: true, mode: 'single', user: null, signup: 'off', singleSignOn: null })
  })

  const status = (over: Partial<AuthStatus>): AuthStatus => ({ authRequired: true, authenticated: false, mode: 'accounts', user: null, signup: 'off', singleSignOn: null, ...over })

  it('goes to the sign-in page with the way back, once, and the failing request says nothing more', async () => {
    const calls: string[] = []
    vi.stubGlobal('fetch', async (url: string) => {
      calls.push(url)
      if (url === '/api/auth/status') return new Response(JSON.stringify(status({})), { status: 200 })
      return new Response(JSON.stringify({ error: { code: 'unauthorized', message: 'Sign in first.' } }), { status: 401 })
    })
    await expect(request('GET', '/api/chat/sessions')).rejects.toMatchObject({ status: 401 })
    expect(assign).toHaveBeenCalledWith('/signin?next=%2Fchat%2F5')
    expect(account.leaving).toBe(true)
    await expect(request('GET', '/api/models')).rejects.toBeInstanceOf(ApiError)
    expect(assign).toHaveBeenCalledTimes(1)
    expect(calls.filter((c) => c === '/api/auth/status')).toHaveLength(1)
  })

  it('leaves the token prompt to a server without accounts', async () => {
    vi.stubGlobal('fetch', async () => new Response(JSON.stringify(status({ mode: 'single' })), { status: 200 }))
    expect(await signInAgain()).toBe(false)
    expect(assign).not.toHaveBeenCalled()
  })
})

describe('account forms and figures', () => {
  it('checks a new password before sending it', () => {
    expect(passwordProblem('', 'long enough', 'long enough')).toBe('errors.code.credentials_missing')
    expect(passwordProblem('ann', 'short', 'short')).toBe('errors.code.password_invalid')
    expect(passwordProblem('ann', 'long enough', 'long enougH')).toBe('account.passwordsDiffer')
    expect(passwordProblem(null, 'long enough', 'long enough')).toBeNull()
  })

  it('sums the usage per person, the most tokens first', () => {
    const row = (userId: number, username: string, day: string, total: number): UsageRow => ({
      userId, username, day, modelId: 1, modelName: 'm', turns: 1, promptTokens: total - 1, completionTokens: 1, totalTokens: total,
    })
    const rows = [row(1, 'alice', '2026-12-01', 10), row(2, 'bob', '2026-12-01', 30), row(1, 'alice', '2026-12-02', 5)]
    expect(usagePerPerson(rows)).toEqual([
      { userId: 2, username: 'bob', turns: 1, promptTokens: 29, completionTokens: 1, totalTokens: 30 },
      { userId: 1, username: 'alice', turns: 2, promptTokens: 13, completionTokens: 2, totalTokens: 15 },
    ])
  })

  it('makes the whole invitation address and one line of an audit detail', () => {
    expect(invitationLink('/invite/abc', 'https://chat.example:8443')).toBe('https://chat.example:8443/invite/abc')
    expect(auditDetail({ before: 'user', after: 'admin', none: null })).toBe('before: user · after: admin')
    expect(auditDetail(null)).toBe('')
  })
})

describe('the accounts’ words', () => {
  afterEach(() => setLocale('en'))

  it('says every refusal code in English and Chinese', () => {
    const enCodes = (en.errors as Record<string, unknown>).code as Record<string, string>
    const zhCodes = (zh.errors as Record<string, unknown>).code as Record<string, string>
    for (const code of ACCOUNT_CODES) {
      expect(enCodes[code], code).toBeTruthy()
      expect(zhCodes[code], code).toBeTruthy()
    }
    setLocale('en')
    expect(readableRequestError(new ApiError('Wrong name or password.', 401, 'bad_credentials'))).toBe('Wrong user name or password.')
    expect(readableRequestError(new ApiError('Too many', 429, 'signin_throttled'))).toMatch(/failed sign-ins for this account/)
    setLocale('zh')
    expect(accountCodeText('account_pending')).toBe('管理员尚未批准此账户，请稍后再试。')
    expect(accountCodeText('no_such_code')).toBeNull()
  })

  it('has the same account, admin and audit words in both languages', () => {
    const keys = (o: unknown, prefix = ''): string[] =>
      Object.entries(o as Record<string, unknown>).flatMap(([k, v]) => (typeof v === 'object' && v ? keys(v, `${prefix}${k}.`) : [`${prefix}${k}`]))
    for (const part of ['account', 'admin'] as const) expect(keys(zh[part]).sort()).toEqual(keys(en[part]).sort())
    for (const action of AUDIT_ACTIONS) expect((en.admin.actionName as Record<string, string>)[action], action).toBeTruthy()
  })
})
