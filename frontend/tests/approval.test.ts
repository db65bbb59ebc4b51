import { describe, expect, it } from 'vitest'
import { APPROVAL_CHOICES, approvalAnswerKey, approvalOf } from '@/lib/run/approval'
import { dangerWords } from '@/lib/run/dangerWords'
import { emptyRunState, applyNodeStream } from '@/lib/run/runState'

const choices = [...APPROVAL_CHOICES]
const question = 'Allow this command (recursive delete)?\nrm -rf ./scratch'

describe('approvalOf', () => {
  it('reads the command from the pause’s approval, or from its question in a snapshot', () => {
    const approval = { command: 'rm -rf ./scratch', description: 'recursive delete' }
    expect(approvalOf({ clarifyId: 'a', question, choices, approval })).toEqual({ ...approval, mcp: null })
    expect(approvalOf({ clarifyId: 'a', question, choices })).toEqual({ ...approval, mcp: null })
  })

  it('reads a call of an MCP server’s tool, from the pause or from its question', () => {
    const mcp = { server: 'files', tool: 'read' }
    const asked = 'Allow the tool read of the MCP server files?\n{"path":"a.txt"}'
    const approval = { command: 'read {"path":"a.txt"}', description: 'files', mcp }
    expect(approvalOf({ clarifyId: 'm', question: asked, choices, approval })).toEqual(approval)
    expect(approvalOf({ clarifyId: 'm', question: asked, choices })).toEqual(approval)
    expect(approvalAnswerKey(asked, 'Allow for this chat')).toBe('thinking.approval.session')
  })

  it('is null for an ordinary clarify question', () => {
    expect(approvalOf({ clarifyId: 'c', question: 'Which colour?', choices: ['red', 'blue'] })).toBeNull()
    expect(approvalOf({ clarifyId: 'c', question: 'Allow me?', choices })).toBeNull()
  })

  it('keeps the approval of a clarify_request event in the run state', () => {
    const meta = { clarifyId: 'a', question, choices, approval: { command: 'rm -rf ./scratch', description: 'recursive delete' } }
    const s = applyNodeStream(emptyRunState('r'), { kind: 'clarify_request', content: '', meta })
    expect(s.pendingClarify?.approval?.command).toBe('rm -rf ./scratch')
  })

  it('names the words of an answered approval, not of other answers', () => {
    expect(approvalAnswerKey(question, 'Deny')).toBe('thinking.approval.deny')
    expect(approvalAnswerKey('Which colour?', 'Deny')).toBeNull()
    expect(approvalAnswerKey(question, 'yes please')).toBeNull()
  })
})

describe('dangerWords', () => {
  it('shows a known danger in Chinese on the Chinese page, and as hermes wrote it in English', () => {
    expect(dangerWords('recursive delete', 'zh')).toBe('递归删除')
    expect(dangerWords('recursive delete', 'en')).toBe('recursive delete')
  })

  it('translates a joined warning part by part and keeps what it does not know', () => {
    const joined = 'git force push (rewrites remote history); a danger from a newer hermes'
    expect(dangerWords(joined, 'zh')).toBe('git 强制推送（会改写远程历史）；a danger from a newer hermes')
  })

  it('fills the forms hermes builds from the command', () => {
    expect(dangerWords('arbitrary program execution via find -exec', 'zh')).toBe('通过 find -exec 执行任意程序')
    expect(dangerWords('Security scan: [HIGH] Homograph URL', 'zh')).toBe('安全扫描：[HIGH] Homograph URL')
  })

  it('does not take an inherited name for a description', () => {
    expect(dangerWords('constructor', 'zh')).toBe('constructor')
  })
})
