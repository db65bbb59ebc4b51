// The browser tab's title: what the page shows ("Trip to Lyon · Agent Chat"), so tabs, history
// and bookmarks tell chats apart. Back to the app's name when the page goes.
import { onScopeDispose, watchEffect } from 'vue'
import { t } from '@/i18n'

export function usePageTitle(name: () => string | null | undefined): void {
  watchEffect(() => {
    const app = t('app.title')
    const shown = name()
    document.title = shown ? `${shown} · ${app}` : app
  })
  onScopeDispose(() => (document.title = t('app.title')))
}
