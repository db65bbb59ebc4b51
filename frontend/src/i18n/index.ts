// Chinese and English, chosen from the browser, switchable in the header (kept per browser).
import { createI18n } from 'vue-i18n'
import en from './en'
import zh from './zh'

export type Locale = 'en' | 'zh'
const KEY = 'agentchat.locale'

export function detectLocale(languages: readonly string[] = navigator.languages ?? [navigator.language]): Locale {
  try {
    const saved = localStorage.getItem(KEY)
    if (saved === 'en' || saved === 'zh') return saved
  } catch {
    /* storage unavailable */
  }
  return languages.some((l) => l?.toLowerCase().startsWith('zh')) ? 'zh' : 'en'
}

export const i18n = createI18n({
  legacy: false,
  locale: detectLocale(),
  fallbackLocale: 'en',
  messages: { en, zh },
})

/** <html lang> in step with the page's language (screen readers, fonts, hyphenation). */
export function applyLangToDocument(locale: Locale = i18n.global.locale.value as Locale): void {
  document.documentElement.lang = locale === 'zh' ? 'zh-CN' : 'en'
}

export function setLocale(locale: Locale): void {
  i18n.global.locale.value = locale
  applyLangToDocument(locale)
  try {
    localStorage.setItem(KEY, locale)
  } catch {
    /* storage unavailable */
  }
}

export const t = (key: string, values?: Record<string, unknown>): string =>
  values ? i18n.global.t(key, values) : i18n.global.t(key)
