// Hermes decorates its status line: "(¬‿¬) pondering...", "🗜️ Compacting context — …".
// The page shows the words only (hermes-integration.md, "Stripping kaomoji").

const FACES = [
  '(｡•́︿•̀｡)', '(◔_◔)', '(¬‿¬)', '( •_•)>⌐■-■', '(⌐■_■)', '(´･_･`)', '◉_◉', '(°ロ°)',
  '( ˘⌣˘)♡', 'ヽ(>∀<☆)☆', '٩(๑❛ᴗ❛๑)۶', '(⊙_⊙)', '(¬_¬)', '( ͡° ͜ʖ ͡°)', 'ಠ_ಠ',
  '(｡◕‿◕｡)', '(◕‿◕✿)', '٩(◕‿◕｡)۶', '(✿◠‿◠)', '( ˘▽˘)っ', '♪(´ε` )', '(◕ᴗ◕✿)', 'ヾ(＾∇＾)',
  '(≧◡≦)', '(★ω★)',
].sort((a, b) => b.length - a.length)

const PICTOGRAPHS = /[\p{Extended_Pictographic}\u{FE0F}\u{200D}\u{20E3}]/gu
const LEADING_SYMBOLS = /^[^\p{L}\p{N}]+(?=[\p{L}\p{N}])/u
/** "<anything without a latin word> verb..." → the verb: faces can hold letters like ಠ or ʖ. */
const FACE_THEN_VERB = /^[^A-Za-z]*?\s([A-Za-z]+(?:\.\.\.|…))$/

/** The status text without kaomoji faces, emoji or leading symbols. */
export function stripHermesDecoration(text: string | null | undefined): string {
  let s = (text ?? '').trim()
  if (!s) return ''
  for (const face of FACES) {
    if (s.startsWith(face)) {
      s = s.slice(face.length).trim()
      break
    }
  }
  const verb = FACE_THEN_VERB.exec(s)
  if (verb) s = verb[1]
  s = s.replace(PICTOGRAPHS, '').replace(LEADING_SYMBOLS, '')
  return s.replace(/\s{2,}/g, ' ').trim()
}

/** hermes' spinner verbs (agent/display.py THINKING_VERBS): words the page can translate. */
export const HERMES_VERBS = [
  'pondering', 'contemplating', 'musing', 'cogitating', 'ruminating', 'deliberating', 'mulling', 'reflecting',
  'processing', 'reasoning', 'analyzing', 'computing', 'synthesizing', 'formulating', 'brainstorming',
] as const

/** The spinner verb a status line is made of ("reflecting..."), or null for any other line. */
export function hermesVerb(status: string): string | null {
  const m = /^([a-z]+)(?:\.\.\.|…)$/i.exec(status.trim())
  const verb = m?.[1].toLowerCase()
  return verb && (HERMES_VERBS as readonly string[]).includes(verb) ? verb : null
}
