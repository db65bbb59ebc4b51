// One jsdom window per Vitest worker, shared by the test files that worker runs (the config
// sets isolate: false).
//
// Without isolation a worker keeps its modules from one test file to the next, Vue and Naive UI
// included, but Vitest's own jsdom environment still builds a new window for every file. Vue's
// runtime-dom takes `document` once, when it is first imported, so from the second file on it
// built components in the first file's (closed) document while the tests' globals (`document`,
// `Element`) were the new window's: Vue Test Utils then found nothing inside a component whose
// root is one element (`this.element instanceof Element` was false), which failed
// ChatContextMeter, composerAnswer, sessionRename and thinkingPanel after any other file.
// Keeping the first window makes the globals and the cached modules agree again; what a test
// file can leave in that window (nodes, storage, the address, attributes on <html> and <body>)
// is cleared before the next file starts.
import { builtinEnvironments, type Environment } from 'vitest/environments'

const jsdom = builtinEnvironments.jsdom
let window: Window | undefined

function clear(w: Window): void {
  const { document } = w
  document.body.replaceChildren()
  for (const el of [document.documentElement, document.body]) {
    for (const name of el.getAttributeNames()) el.removeAttribute(name)
  }
  document.title = ''
  w.localStorage.clear()
  w.sessionStorage.clear()
  w.history.replaceState(null, '', '/')
}

export default <Environment>{
  name: 'shared-jsdom',
  transformMode: 'web',
  async setup(global, options) {
    if (!window) {
      await jsdom.setup(global, options)
      window = global.window as Window
    } else {
      clear(window)
    }
    // The window stays for the worker's next file; the worker's end takes it away.
    return { teardown() {} }
  },
}
