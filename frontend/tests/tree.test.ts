import { describe, expect, it } from 'vitest'
import { activeLeaf, prependOlder, runningMessage, sameBranchEnd, siblingAt, summaries, versionInfo, viewOf } from '@/lib/chat/tree'
import { message } from './fixtures'

describe('tree helpers', () => {
  it('versionInfo is null without siblings and 1-based otherwise', () => {
    expect(versionInfo({ siblingCount: 1, siblingIndex: 0 })).toBeNull()
    expect(versionInfo({ siblingCount: 3, siblingIndex: 1 })).toEqual({ index: 2, count: 3, hasPrev: true, hasNext: true })
    expect(versionInfo({ siblingCount: 3, siblingIndex: 0 })).toMatchObject({ hasPrev: false, hasNext: true })
    expect(versionInfo({ siblingCount: 3, siblingIndex: 2 })).toMatchObject({ index: 3, hasNext: false })
  })

  it('siblingAt steps through versions and stops at the ends', () => {
    const sibs = [
      { messageId: 4, isActive: false },
      { messageId: 7, isActive: true },
      { messageId: 9, isActive: false },
    ]
    expect(siblingAt(sibs, 7, -1)?.messageId).toBe(4)
    expect(siblingAt(sibs, 7, 1)?.messageId).toBe(9)
    expect(siblingAt(sibs, 9, 1)).toBeNull()
    expect(siblingAt(sibs, 99, 1)?.messageId).toBe(9) // unknown id: from the active one
  })

  it('finds the running message and the leaf', () => {
    const ms = [message(1), message(2, { role: 'ASSISTANT', status: 'RUNNING', runId: 'r' })]
    expect(runningMessage(ms)?.id).toBe(2)
    expect(runningMessage([message(1)])).toBeNull()
    expect(activeLeaf(ms)?.id).toBe(2)
    expect(activeLeaf([])).toBeNull()
  })

  it('classifies messages for rendering', () => {
    expect(viewOf({ role: 'SYSTEM', status: 'SUMMARY' })).toBe('summary')
    expect(viewOf({ role: 'SYSTEM', status: 'RESET' })).toBe('reset')
    expect(viewOf({ role: 'USER', status: 'SENT' })).toBe('user')
    expect(viewOf({ role: 'ASSISTANT', status: 'FAILED' })).toBe('assistant')
  })

  it('prepends older pages without duplicates and lists summaries', () => {
    const merged = prependOlder([message(1), message(2)], [message(2), message(3)])
    expect(merged.map((m) => m.id)).toEqual([1, 2, 3])
    expect(summaries([message(1), message(2, { role: 'SYSTEM', status: 'SUMMARY' })]).map((m) => m.id)).toEqual([2])
  })
})

describe('sameBranchEnd', () => {
  const m = (id: number, parentId: number | null) => ({ id, parentId })

  it('is the same end when the last messages and their parents match', () => {
    expect(sameBranchEnd([m(1, null), m(2, 1), m(3, 2)], [m(2, 1), m(3, 2)])).toBe(true)
    expect(sameBranchEnd([], [])).toBe(true)
  })

  it('differs for a turn added elsewhere, or one slipped in under a question just sent', () => {
    expect(sameBranchEnd([m(1, null), m(2, 1)], [m(3, 2), m(4, 3)])).toBe(false)
    expect(sameBranchEnd([m(1, null), m(2, 1), m(5, 2), m(6, 5)], [m(5, 4), m(6, 5)])).toBe(false)
    expect(sameBranchEnd([], [m(1, null)])).toBe(false)
  })
})
