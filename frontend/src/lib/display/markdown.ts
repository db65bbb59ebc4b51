// Model output → safe HTML. markdown-it with raw HTML off, highlight.js for code, then
// DOMPurify: no script, no event handlers, no javascript: URLs, no remote images; links open
// in a new tab without referrer or opener.
import DOMPurify from 'dompurify'
import hljs from 'highlight.js/lib/common'
import MarkdownIt from 'markdown-it'

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)
}

function highlightNow(code: string, lang: string): string {
  try {
    if (lang && hljs.getLanguage(lang)) return hljs.highlight(code, { language: lang, ignoreIllegals: true }).value
    return hljs.highlightAuto(code).value
  } catch {
    return escapeHtml(code)
  }
}

// A streaming answer is rendered again and again: its finished code blocks are highlighted once
// (guessing a language tries them all: it was most of the cost of a long answer).
const highlighted = new Map<string, string>()
const HIGHLIGHTS_KEPT = 64

function highlight(code: string, lang: string): string {
  const key = `${lang}\u0000${code}`
  const known = highlighted.get(key)
  if (known !== undefined) {
    highlighted.delete(key) // the most recently used stays: a block still growing ages out
    highlighted.set(key, known)
    return known
  }
  const out = highlightNow(code, lang)
  if (highlighted.size >= HIGHLIGHTS_KEPT) highlighted.delete(highlighted.keys().next().value!)
  highlighted.set(key, out)
  return out
}

const md = new MarkdownIt({ html: false, linkify: true, breaks: false })

/** Words the renderer puts into the HTML, in the page's language (passed as markdown-it env). */
export interface MarkdownLabels {
  copy?: string
  copyCode?: string
  /** "... not loaded: {src}" */
  blockedImage?: string
}

md.renderer.rules.fence = (tokens, idx, _options, env: MarkdownLabels) => {
  const token = tokens[idx]
  const lang = token.info.trim().split(/\s+/)[0] ?? ''
  const label = lang ? `<span class="code-lang">${escapeHtml(lang)}</span>` : '<span class="code-lang"></span>'
  const copy = escapeHtml(env?.copy ?? 'Copy')
  const copyCode = escapeHtml(env?.copyCode ?? 'Copy code')
  return (
    `<div class="code-block">` +
    `<div class="code-head">${label}<button type="button" class="code-copy" data-copy-code="1" ` +
    `aria-label="${copyCode}">${copy}</button></div>` +
    `<pre><code class="hljs">${highlight(token.content, lang)}</code></pre></div>`
  )
}

const renderImage = md.renderer.rules.image!
// An image from another site is not loaded (nothing leaves the page): its alt text and a note
// with the address as plain text stand in its place.
md.renderer.rules.image = (tokens, idx, options, env: MarkdownLabels, self) => {
  const token = tokens[idx]
  const src = token.attrGet('src') ?? ''
  if (isSafeImageSrc(src)) return renderImage(tokens, idx, options, env, self)
  const alt = escapeHtml(self.renderInlineAsText(token.children ?? [], options, env))
  const shown = src.length > 200 ? src.slice(0, 199) + '…' : src
  const note = (env?.blockedImage ?? 'Image from another site not loaded: {src}').replace('{src}', shown)
  return (
    `<span class="blocked-image" role="note"><img alt="${alt}" data-blocked-src="${escapeHtml(src.slice(0, 200))}">` +
    `<span class="blocked-note">${escapeHtml(note)}</span></span>`
  )
}

const purifier = DOMPurify()
let hooked = false

/** Same-origin relative URL or an inline data: image — nothing else loads into the page. */
export function isSafeImageSrc(src: string): boolean {
  const s = src.trim()
  if (/^data:image\/(png|gif|jpe?g|webp);/i.test(s)) return true
  if (s.startsWith('//') || s.startsWith('\\')) return false
  if (/^[a-z][a-z0-9+.-]*:/i.test(s)) return false
  return s.length > 0
}

function installHooks(): void {
  if (hooked) return
  hooked = true
  purifier.addHook('afterSanitizeAttributes', (node) => {
    const el = node as Element
    if (el.tagName === 'A') {
      el.setAttribute('target', '_blank')
      el.setAttribute('rel', 'noopener noreferrer')
    }
    if (el.tagName === 'IMG') {
      const src = el.getAttribute('src') ?? ''
      if (el.hasAttribute('src') && !isSafeImageSrc(src)) {
        el.removeAttribute('src')
        el.setAttribute('data-blocked-src', src.slice(0, 200))
        el.setAttribute('alt', el.getAttribute('alt') || 'image blocked')
      }
      el.removeAttribute('srcset')
    }
  })
}

export function sanitizeHtml(html: string): string {
  installHooks()
  return purifier.sanitize(html, {
    USE_PROFILES: { html: true },
    FORBID_TAGS: ['style', 'form', 'input', 'textarea', 'select', 'iframe', 'object', 'embed', 'link', 'meta', 'base', 'svg', 'math'],
    FORBID_ATTR: ['style', 'srcset', 'action', 'formaction', 'xlink:href', 'ping'],
    ALLOW_UNKNOWN_PROTOCOLS: false,
  }) as string
}

/** Markdown (model output) → sanitised HTML. */
export function renderMarkdown(text: string | null | undefined, labels: MarkdownLabels = {}): string {
  if (!text) return ''
  return sanitizeHtml(md.render(text, { ...labels }))
}

/** Copy text to the clipboard; falls back to a hidden textarea. */
export async function copyText(text: string): Promise<boolean> {
  try {
    if (navigator.clipboard?.writeText) {
      await navigator.clipboard.writeText(text)
      return true
    }
  } catch {
    /* fall through */
  }
  const area = document.createElement('textarea')
  area.value = text
  area.setAttribute('readonly', '')
  area.style.position = 'fixed'
  area.style.opacity = '0'
  document.body.appendChild(area)
  area.select()
  const ok = document.execCommand?.('copy') ?? false
  area.remove()
  return ok
}

/** A SKILL.md's YAML front matter (between `---` lines at the top) apart from its body. */
export function splitFrontMatter(text: string): { frontMatter: string | null; body: string } {
  const match = /^---[ \t]*\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/.exec(text)
  if (!match) return { frontMatter: null, body: text }
  return { frontMatter: match[1], body: text.slice(match[0].length) }
}
