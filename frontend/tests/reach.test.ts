import { describe, expect, it } from 'vitest'
import { mcpServerOfKey, offAfter, serversOn } from '@/lib/chat/reach'

describe("a chat's MCP servers", () => {
  it('uses every offered server it did not turn off', () => {
    expect(serversOn(['files', 'search'], ['search', 'gone'])).toEqual(['files'])
  })

  it('turns off the unchecked ones and keeps what is no longer offered', () => {
    expect(offAfter(['files', 'search'], ['search'], ['gone'])).toEqual(['files', 'gone'])
    expect(offAfter(['files', 'search'], ['files', 'search'], ['search'])).toEqual([])
  })

  it('tells an MCP approval key from a dangerous-command pattern', () => {
    expect(mcpServerOfKey('mcp:files')).toBe('files')
    expect(mcpServerOfKey('recursive delete')).toBeNull()
  })
})
