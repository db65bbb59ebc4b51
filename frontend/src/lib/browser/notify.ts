// Readable error and info toasts from anywhere (composables included), via Naive UI's
// discrete API. Tests replace the sink.
import { createDiscreteApi, darkTheme } from 'naive-ui'
import { computed } from 'vue'
import { errorText } from '../display/format'
import { theme } from './theme'
import { account } from '../accounts/account'

export interface Notifier {
  error(text: string): void
  success(text: string): void
  info(text: string): void
}

let sink: Notifier | null = null

function defaultSink(): Notifier {
  const configProviderProps = computed(() => ({ theme: theme.value === 'dark' ? darkTheme : null }))
  const { message } = createDiscreteApi(['message'], { configProviderProps })
  return {
    error: (t) => message.error(t, { duration: 6000, closable: true }),
    success: (t) => message.success(t),
    info: (t) => message.info(t),
  }
}

export function notifier(): Notifier {
  sink ??= defaultSink()
  return sink
}

export function setNotifier(next: Notifier | null): void {
  sink = next
}

/** Show a failed request's message (the API's error.message). */
export function notifyError(err: unknown): void {
  if (account.leaving) return // on the way to the sign-in page: its requests fail quietly
  notifier().error(errorText(err))
}
