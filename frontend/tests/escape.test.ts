import { beforeEach, describe, expect, it } from 'vitest'
import { escapeStopsRun } from '@/lib/chat/escape'

function page(): void {
  document.body.innerHTML = `
    <aside class="session-list"><input data-testid="session-search" /><button id="row">chat</button></aside>
    <section class="conversation">
      <div class="conversation-head"><h1>t</h1></div>
      <div data-testid="message-list" tabindex="-1">
        <button id="copy">Copy</button>
        <section data-testid="clarify-panel"><button id="choice">red</button><input id="clarify" /></section>
        <div data-testid="edit-box"><textarea id="edit"></textarea></div>
      </div>
      <form data-testid="composer"><textarea data-testid="composer-input"></textarea><button id="send">Send</button>
        <div class="n-base-selection"><input id="model" /></div></form>
    </section>
    <main id="main" tabindex="-1"></main>
    <div role="dialog"><button id="dialog-ok">OK</button></div>`
}

const el = (selector: string) => document.querySelector(selector)

describe('escapeStopsRun', () => {
  beforeEach(page)

  it('stops from the question box, the conversation and the page itself', () => {
    expect(escapeStopsRun(el('[data-testid="composer-input"]'))).toBe(true)
    expect(escapeStopsRun(el('#send'))).toBe(true)
    expect(escapeStopsRun(el('#copy'))).toBe(true)
    expect(escapeStopsRun(el('[data-testid="message-list"]'))).toBe(true)
    expect(escapeStopsRun(document.body)).toBe(true)
    expect(escapeStopsRun(el('#main'))).toBe(true)
    expect(escapeStopsRun(null)).toBe(true)
  })

  it('leaves Escape to the boxes and layers that use it', () => {
    expect(escapeStopsRun(el('[data-testid="session-search"]'))).toBe(false)
    expect(escapeStopsRun(el('#clarify'))).toBe(false)
    expect(escapeStopsRun(el('#choice'))).toBe(false)
    expect(escapeStopsRun(el('#edit'))).toBe(false)
    expect(escapeStopsRun(el('#model'))).toBe(false)
    expect(escapeStopsRun(el('#dialog-ok'))).toBe(false)
    expect(escapeStopsRun(el('#row'))).toBe(false) // the chat list: not the conversation
  })
})
