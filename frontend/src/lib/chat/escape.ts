// Whether an Escape stops the running answer: only when the person is in the question box or
// on the page itself (the conversation, its buttons, nothing focused). Any other box or layer
// that uses Escape keeps it: the search box, the clarify answer, an edit box, selects, menus,
// popovers and dialogs. Stopping cannot be undone, so a stray Escape must not do it.

const OWNERS = [
  '.n-base-selection',
  '.n-base-select-menu',
  '.n-dropdown-menu',
  '.n-popover',
  '[role="dialog"]',
  '[role="menu"]',
  '[role="listbox"]',
  '[data-testid="clarify-panel"]',
  '[data-testid="edit-box"]',
].join(', ')

const TYPING = 'input, textarea, select, [contenteditable=""], [contenteditable="true"]'
const PAGE_PARTS = '[data-testid="composer"], [data-testid="message-list"], .conversation-head'

export function escapeStopsRun(target: Element | null): boolean {
  if (!target || target === document.body || target === document.documentElement || target.matches('main')) return true
  if (target.closest(OWNERS)) return false
  if (target.matches('[data-testid="composer-input"]')) return true
  if (target.matches(TYPING)) return false
  return Boolean(target.closest(PAGE_PARTS))
}
