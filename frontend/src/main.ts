import { createApp } from 'vue'
import 'highlight.js/styles/github.css'
import './styles.css'
import App from './App.vue'
import { i18n } from './i18n'
import { notifyError } from './lib/notify'
import { router } from './router'

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
