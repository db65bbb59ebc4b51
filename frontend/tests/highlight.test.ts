import { describe, expect, it } from 'vitest'
import { markedParts, queryWords } from '@/lib/chat/highlight'

describe('markedParts', () => {
  it('marks every word of the query, whatever its case', () => {
    expect(markedParts('Try the Bouchons of Lyon, bouchons again', 'BOUCHONS lyon')).toEqual([
      { text: 'Try the ', hit: false },
      { text: 'Bouchons', hit: true },
      { text: ' of ', hit: false },
      { text: 'Lyon', hit: true },
      { text: ', ', hit: false },
      { text: 'bouchons', hit: true },
      { text: ' again', hit: false },
    ])
  })
  it('marks words of scripts without spaces and takes regex characters as text', () => {
    expect(markedParts('这个周末去哪里', '周末')).toEqual([
      { text: '这个', hit: false },
      { text: '周末', hit: true },
      { text: '去哪里', hit: false },
    ])
    expect(queryWords('a.b* (c)')).toEqual(['a', 'b', 'c'])
    expect(markedParts('no words', '  ')).toEqual([{ text: 'no words', hit: false }])
  })
})
