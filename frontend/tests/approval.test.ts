import { describe, expect, it } from 'vitest'
import { APPROVAL_CHOICES, approvalAnswerKey, approvalOf } from '@/lib/approval'
import { emptyRunState, applyNodeStream } from '@/lib/runState'

const choices = [...APPROVAL_CHOICES]
const question = 'Allow this command (recursive delete)?\nrm -rf ./scratch'

describe('approvalOf', () => {
  it('reads the command from the pause’s approval, or from its question in a snapshot', () => {
    const approval = { command: 'rm -rf ./scratch', description: 'recursive delete' }
    expect(approvalOf({ clarifyId: 'a', question, choices, approval })).toEqual(approval)
    expect(approvalOf({ clarifyId: 'a', question, choices })).toEqual(approval)
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
