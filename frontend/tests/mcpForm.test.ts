import { describe, expect, it } from 'vitest'
import { blankForm, bodyOf, formOf } from '@/lib/tools/mcpForm'
import type { McpServer } from '@/api/schema'

const stored: McpServer = {
  id: 3, name: 'files', transport: 'stdio', command: 'npx', args: ['-y', 'server files'],
  env: [{ name: 'TOKEN', last4: 'abcd' }], url: '', headers: [], enabled: true, approval: 'ask',
  timeoutS: 60, connectTimeoutS: 20, toolsInclude: [], toolsExclude: [],
  createdAt: '2026-12-03T10:00:00Z', updatedAt: '2026-12-03T10:00:00Z',
}

describe('the MCP server form', () => {
  it('sends a new stdio server with its arguments one per line and its environment', () => {
    const form = { ...blankForm(), name: ' files ', command: ' npx ', args: '-y\n server files \n\n', env: [{ name: 'TOKEN', value: 's3cret', stored: null }] }
    expect(bodyOf(form, false)).toEqual({
      name: 'files', transport: 'stdio', enabled: true, approval: 'ask', toolsInclude: [], toolsExclude: [],
      command: 'npx', args: ['-y', 'server files'], env: { TOKEN: 's3cret' },
    })
  })

  it('keeps a stored value left empty and sends a changed one', () => {
    const form = formOf(stored)
    expect(form.env).toEqual([{ name: 'TOKEN', value: '', stored: 'abcd' }])
    expect(bodyOf(form, true)).toMatchObject({ env: { TOKEN: null } })
    form.env[0].value = 'new-value'
    form.env.push({ name: 'EXTRA', value: '', stored: null })
    expect(bodyOf(form, true)).toMatchObject({ env: { TOKEN: 'new-value', EXTRA: '' } })
  })

  it('sends only the fields of an http server, and no name on a change', () => {
    const form = { ...formOf(stored), transport: 'http' as const, url: 'https://x.test/mcp ', headers: [{ name: 'Authorization', value: 'Bearer t', stored: null }] }
    const body = bodyOf(form, true)
    expect(body).toEqual({
      transport: 'http', enabled: true, approval: 'ask', toolsInclude: [], toolsExclude: [], url: 'https://x.test/mcp',
      headers: { Authorization: 'Bearer t' }, timeoutS: 60, connectTimeoutS: 20,
    })
    expect('name' in body).toBe(false)
  })

  it('offers only some tools, one name per line', () => {
    const form = { ...formOf(stored), toolsInclude: 'read\n\n search ', toolsExclude: 'delete' }
    expect(bodyOf(form, true)).toMatchObject({ toolsInclude: ['read', 'search'], toolsExclude: ['delete'] })
  })
})
