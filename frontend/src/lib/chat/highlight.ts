// A search hit's text in parts, the query's words marked (case ignored), for <mark>.

export interface Part {
  text: string
  hit: boolean
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
}

/** The query's words: what the server searches for (split at anything not a letter or digit). */
export function queryWords(query: string): string[] {
  return [...new Set(query.toLowerCase().split(/[^\p{L}\p{N}]+/u).filter(Boolean))]
}

export function markedParts(text: string, query: string): Part[] {
  const words = queryWords(query).sort((a, b) => b.length - a.length)
  if (!words.length) return [{ text, hit: false }]
  const pattern = new RegExp(`(${words.map(escapeRegExp).join('|')})`, 'giu')
  return text
    .split(pattern)
    .filter(Boolean)
    .map((part) => ({ text: part, hit: words.includes(part.toLowerCase()) }))
}
