// The audit log's actions (docs/contracts.md "Accounts") and its details in one line.

export const AUDIT_ACTIONS = [
  'signin', 'signin_failed', 'signout', 'signout_everywhere', 'session_revoked', 'signup', 'password_changed',
  'password_reset', 'user_created', 'user_deleted', 'role_changed', 'user_disabled', 'user_enabled',
  'invitation_created', 'invitation_revoked', 'invitation_accepted', 'admin_change',
] as const

/** `{before: "user", after: "admin"}` → "before: user · after: admin"; '' for none. */
export function auditDetail(detail: Record<string, unknown> | null | undefined): string {
  if (!detail) return ''
  return Object.entries(detail)
    .filter(([, v]) => v !== null && v !== undefined && v !== '')
    .map(([k, v]) => `${k}: ${typeof v === 'object' ? JSON.stringify(v) : String(v)}`)
    .join(' · ')
}
