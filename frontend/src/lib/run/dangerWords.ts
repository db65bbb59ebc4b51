// hermes names why a command is dangerous in English (tools/approval.py: its patterns, its
// execution checks, a plugin's reason, a security scan). The Chinese page shows the known ones
// in Chinese; a warning that joins several ("A; B") is shown part by part, and a description
// this page does not know (a newer hermes) stays as hermes wrote it.
import zh from '@/i18n/dangers.zh.json'

const KNOWN: Readonly<Record<string, string>> = zh
const FORMS: readonly [RegExp, (m: RegExpExecArray) => string][] = [
  [/^arbitrary program execution via (\S+) (.+)$/, (m) => `通过 ${m[1]} ${m[2]} 执行任意程序`],
  [/^Plugin requires approval for (.+)$/, (m) => `插件要求批准使用 ${m[1]}`],
  [/^Security scan: ([\s\S]+)$/, (m) => `安全扫描：${m[1]}`],
]

function inChinese(part: string): string {
  if (Object.hasOwn(KNOWN, part)) return KNOWN[part]
  for (const [form, words] of FORMS) {
    const match = form.exec(part)
    if (match) return words(match)
  }
  return part
}

/** A danger description in the page's language. */
export function dangerWords(description: string, locale: string): string {
  if (locale !== 'zh') return description
  return description.split('; ').map(inChinese).join('；')
}
