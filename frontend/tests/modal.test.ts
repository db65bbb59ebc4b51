import { describe, expect, it } from 'vitest'
import { inertOutside, wrapTab } from '@/lib/browser/modal'

describe('inertOutside', () => {
  it('makes everything but the kept layers inert, and undoes only what it did', () => {
    document.body.innerHTML = `
      <header id="head"><a href="#">Chat</a></header>
      <main><div class="page"><aside id="list"><button>New</button></aside><button id="backdrop"></button>
      <section id="talk"><textarea></textarea></section></div></main>
      <footer id="already"></footer>`
    document.getElementById('already')!.setAttribute('inert', '')
    const undo = inertOutside([document.getElementById('list')!, document.getElementById('backdrop')!])
    const inert = (id: string) => document.getElementById(id)!.hasAttribute('inert')
    expect([inert('head'), inert('talk'), inert('list'), inert('backdrop')]).toEqual([true, true, false, false])
    undo()
    expect([inert('head'), inert('talk'), inert('already')]).toEqual([false, false, true])
  })
})

describe('wrapTab', () => {
  it('takes Tab from the last control to the first and Shift+Tab from the first to the last', () => {
    document.body.innerHTML = `<aside id="layer"><button id="a">A</button><input id="b"><button id="c" disabled>C</button><button id="d">D</button></aside>`
    const layer = document.getElementById('layer')!
    for (const el of layer.querySelectorAll('*')) (el as HTMLElement).getClientRects = () => [{}] as unknown as DOMRectList
    const tab = (shiftKey: boolean) => {
      const event = new KeyboardEvent('keydown', { key: 'Tab', shiftKey, cancelable: true })
      wrapTab(layer, event)
      return event.defaultPrevented
    }
    document.getElementById('d')!.focus()
    expect(tab(false)).toBe(true)
    expect(document.activeElement?.id).toBe('a')
    expect(tab(true)).toBe(true)
    expect(document.activeElement?.id).toBe('d')
    document.getElementById('b')!.focus()
    expect(tab(false)).toBe(false) // the browser moves it on
  })
})
