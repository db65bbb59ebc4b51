import { createApp, watch } from 'vue'
import './styles.css'
import App from './App.vue'
import { applyLangToDocument, i18n, t } from './i18n'
import { relabel, watchNaiveLabels } from '@/lib/browser/naiveLabels'
import { notifyError } from '@/lib/browser/notify'
import { applyThemeToDocument } from '@/lib/browser/theme'
import { router } from './router'

applyLangToDocument()
applyThemeToDocument()
const app = createApp(App)
// The page never goes blank: a failing component or promise shows a message instead.
app.config.errorHandler = (err, _instance, info) => {
  console.error(`[${info}]`, err)
  notifyError(err)
}
window.addEventListener('unhandledrejection', (event) => {
  console.error(event.reason)
  notifyError(event.reason)
})
app.use(i18n).use(router).mount('#app')
// Naive UI's own screen-reader labels in the page's language
watchNaiveLabels(t)
watch(i18n.global.locale, () => relabel(document.body, t))
