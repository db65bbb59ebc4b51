import { fileURLToPath, URL } from 'node:url'
import vue from '@vitejs/plugin-vue'
import { defineConfig } from 'vitest/config'

// The built page is served by the API (src/agentchat/web/frontend.py) under a strict CSP:
// no inline script, nothing remote. Vite emits only <script type="module" src> tags.
export default defineConfig({
  plugins: [vue()],
  resolve: {
    alias: { '@': fileURLToPath(new URL('./src', import.meta.url)) },
  },
  define: {
    __VUE_OPTIONS_API__: 'false',
    __VUE_PROD_DEVTOOLS__: 'false',
    __VUE_PROD_HYDRATION_MISMATCH_DETAILS__: 'false',
    __VUE_I18N_FULL_INSTALL__: 'false',
    __VUE_I18N_LEGACY_API__: 'false',
    __INTLIFY_PROD_DEVTOOLS__: 'false',
  },
  build: {
    outDir: '../src/agentchat/static',
    emptyOutDir: true,
    assetsInlineLimit: 0,
    chunkSizeWarningLimit: 1500,
    modulePreload: { polyfill: false },
  },
  server: {
    proxy: { '/api': 'http://127.0.0.1:8000' },
  },
  test: {
    // No fresh worker, module graph and jsdom window per test file: a worker's files share one
    // jsdom window (tests/sharedJsdom.ts says why it must be one, and what it clears between
    // files), and threads cost less CPU than forks here. On the 2-core machine, 43 files / 257
    // tests, run in turn twice at a load of 2-3: isolated forks (Vitest's default) 62-68 s user
    // + 5-6 s sys, 57-61 s wall; shared, forks 27-28 s user + 1.2 s sys, 24-26 s wall; shared,
    // threads 18.5 s user + 0.8-0.9 s sys, 15-21 s wall.
    environment: './tests/sharedJsdom.ts',
    isolate: false,
    pool: 'threads',
    include: ['tests/**/*.test.ts'],
    restoreMocks: true,
    // Vitest's default of 5 s per test failed tests that mount thousands of nodes in jsdom
    // (hugeToolOutput.test.ts) on a busy 2-core machine; none of them is about speed.
    testTimeout: 60_000,
  },
})
