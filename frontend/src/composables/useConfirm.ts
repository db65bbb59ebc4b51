// A confirm dialog as a promise: centred over the page (it fits a phone, the keyboard reaches
// its buttons, Escape closes it), the confirm button busy while `act` runs. Resolves to what
// `act` answered, or false when the person cancelled.
import { useDialog } from 'naive-ui'
import { t } from '@/i18n'

export interface ConfirmOptions {
  title: string
  content: string
  confirm: string
  /** What confirming does; false keeps nothing done (the dialog closes either way). */
  act: () => Promise<boolean>
}

export function useConfirm() {
  const dialog = useDialog()
  return (options: ConfirmOptions): Promise<boolean> =>
    new Promise((resolve) => {
      let result = false
      dialog.warning({
        title: options.title,
        content: options.content,
        positiveText: options.confirm,
        negativeText: t('common.cancel'),
        onPositiveClick: async () => {
          result = await options.act()
        },
        onAfterLeave: () => resolve(result),
      })
    })
}
