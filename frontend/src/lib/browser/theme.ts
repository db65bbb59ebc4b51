// Light or dark: follows the system until the person picks one; the choice is kept per browser.
// The resolved theme is written to <html data-theme> (CSS variables) and drives Naive UI.
import { computed, ref, watchEffect } from 'vue'
import { matchMediaRef } from './media'

export type ThemePreference = 'system' | 'light' | 'dark'
export type Theme = 'light' | 'dark'
const KEY = 'agentchat.theme'

function readPreference(): ThemePreference {
  try {
    const saved = localStorage.getItem(KEY)
    if (saved === 'light' || saved === 'dark' || saved === 'system') return saved
  } catch {
    /* storage unavailable */
  }
  return 'system'
}

export const themePreference = ref<ThemePreference>(readPreference())
const systemDark = matchMediaRef('(prefers-color-scheme: dark)')

export const theme = computed<Theme>(() =>
  themePreference.value === 'system' ? (systemDark.value ? 'dark' : 'light') : themePreference.value,
)

export function setThemePreference(value: ThemePreference): void {
  themePreference.value = value
  try {
    if (value === 'system') localStorage.removeItem(KEY)
    else localStorage.setItem(KEY, value)
  } catch {
    /* storage unavailable */
  }
}

/** Keep <html data-theme> and color-scheme (native controls, scrollbars) on the resolved theme. */
export function applyThemeToDocument(): void {
  watchEffect(() => {
    const root = document.documentElement
    root.dataset.theme = theme.value
    root.style.colorScheme = theme.value
  })
}
