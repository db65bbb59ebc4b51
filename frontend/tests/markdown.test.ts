import { describe, expect, it, vi } from 'vitest'
import hljs from 'highlight.js/lib/common'
import { isSafeImageSrc, renderMarkdown, sanitizeHtml, splitFrontMatter } from '@/lib/display/markdown'

function dom(html: string): HTMLElement {
  const div = document.createElement('div')
  div.innerHTML = html
  return div
}

describe('renderMarkdown', () => {
  it('renders markdown with highlighted code and a copy button', () => {
    const el = dom(renderMarkdown('# Title\n\n```python\nprint("hi")\n```'))
    expect(el.querySelector('h1')?.textContent).toBe('Title')
    expect(el.querySelector('.code-block pre code.hljs')?.textContent).toBe('print("hi")\n')
    expect(el.querySelector('.code-block button[data-copy-code]')).not.toBeNull()
    expect(el.querySelector('.hljs-built_in, .hljs-string')).not.toBeNull()
  })

  it('guesses the language of a finished code block once, not at every render of a streaming answer', () => {
    const guess = vi.spyOn(hljs, 'highlightAuto')
    const block = '```\n' + Array.from({ length: 50 }, (_, i) => `let v${i} = f(${i});`).join('\n') + '\n```'
    const first = renderMarkdown(`${block}\n\nThe answer goes`)
    const again = renderMarkdown(`${block}\n\nThe answer goes on`)
    expect(guess).toHaveBeenCalledTimes(1)
    expect(dom(again).querySelector('pre code')?.innerHTML).toBe(dom(first).querySelector('pre code')?.innerHTML)
  })

  it('keeps raw HTML as text: no script, no handlers', () => {
    const el = dom(renderMarkdown('<script>alert(1)</script><img src=x onerror=alert(1)>'))
    expect(el.querySelector('script')).toBeNull()
    expect(el.querySelector('img')).toBeNull()
    expect(el.textContent).toContain('<script>')
  })

  it('drops javascript: links and opens others safely', () => {
    const el = dom(renderMarkdown('[bad](javascript:alert(1)) [good](https://example.org)'))
    const links = [...el.querySelectorAll('a')]
    expect(links.some((a) => (a.getAttribute('href') ?? '').startsWith('javascript'))).toBe(false)
    const good = links.find((a) => a.getAttribute('href') === 'https://example.org')!
    expect(good.getAttribute('target')).toBe('_blank')
    expect(good.getAttribute('rel')).toBe('noopener noreferrer')
  })

  it('blocks remote images but keeps data: and same-origin ones', () => {
    const el = dom(renderMarkdown('![a](https://evil.example/t.png) ![b](//evil.example/x.png) ![c](/static/ok.png) ![d](data:image/png;base64,AAAA)'))
    const imgs = [...el.querySelectorAll('img')]
    expect(imgs.map((i) => i.getAttribute('src'))).toEqual([null, null, '/static/ok.png', 'data:image/png;base64,AAAA'])
    expect(imgs[0].getAttribute('data-blocked-src')).toBe('https://evil.example/t.png')
  })

  it('says in the page language why an outside image is missing, with its address as text', () => {
    const el = dom(renderMarkdown('![chart](https://evil.example/t.png)', { blockedImage: '未加载外部图片：{src}' }))
    const note = el.querySelector('.blocked-image')!
    expect(note.getAttribute('role')).toBe('note')
    expect(note.textContent).toContain('未加载外部图片：https://evil.example/t.png')
    expect(note.querySelector('a')).toBeNull()
    expect(note.querySelector('img')?.getAttribute('alt')).toBe('chart')
  })

  it('labels the code block copy button in the page language', () => {
    const el = dom(renderMarkdown('```js\nx()\n```', { copy: '复制', copyCode: '复制代码' }))
    const button = el.querySelector('button[data-copy-code]')!
    expect(button.textContent).toBe('复制')
    expect(button.getAttribute('aria-label')).toBe('复制代码')
  })

  it('sanitizeHtml strips handlers, styles, iframes and svg even if HTML slips through', () => {
    const el = dom(sanitizeHtml('<p onclick="x()" style="color:red">t</p><iframe src="https://x"></iframe><svg><script>1</script></svg><a href="JaVaScRiPt:1">z</a>'))
    expect(el.querySelector('[onclick]')).toBeNull()
    expect(el.querySelector('[style]')).toBeNull()
    expect(el.querySelector('iframe, svg, script')).toBeNull()
    expect(el.querySelector('a')?.getAttribute('href')).toBeNull()
  })

  it('isSafeImageSrc', () => {
    expect(isSafeImageSrc('img.png')).toBe(true)
    expect(isSafeImageSrc('http://x/y.png')).toBe(false)
    expect(isSafeImageSrc('data:image/svg+xml;base64,AA')).toBe(false)
    expect(isSafeImageSrc('')).toBe(false)
  })
})

describe('splitFrontMatter', () => {
  it('separates the YAML block at the top', () => {
    const { frontMatter, body } = splitFrontMatter('---\nname: x\ndescription: y\n---\n# Title\n')
    expect(frontMatter).toBe('name: x\ndescription: y')
    expect(body).toBe('# Title\n')
  })

  it('leaves text without front matter alone', () => {
    expect(splitFrontMatter('# Title\n---\nno')).toEqual({ frontMatter: null, body: '# Title\n---\nno' })
  })
})
