// The Tools page form: what it starts from and what it sends (docs/contracts.md, "MCP servers").
// The values of a server's environment and headers are write-only: a stored one shows its
// last four characters, and an empty value on a stored name keeps it (sent as null).
import type { McpServer, McpServerCreate, McpServerUpdate } from '@/api/schema'

export type Transport = McpServerCreate['transport']
export type ApprovalMode = NonNullable<McpServerCreate['approval']>

export interface SecretRow {
  name: string
  value: string
  /** The stored value's last four characters ('' when it is too short to show any); null: new. */
  stored: string | null
}

export interface McpForm {
  name: string
  transport: Transport
  command: string
  /** One argument per line (an argument may hold spaces). */
  args: string
  env: SecretRow[]
  url: string
  headers: SecretRow[]
  enabled: boolean
  approval: ApprovalMode
  timeoutS: number | null
  connectTimeoutS: number | null
  /** Tool names, one per line: only these are offered (include wins), or all but these. */
  toolsInclude: string
  toolsExclude: string
}

export function blankForm(): McpForm {
  return {
    name: '', transport: 'stdio', command: '', args: '', env: [], url: '', headers: [],
    enabled: true, approval: 'ask', timeoutS: null, connectTimeoutS: null, toolsInclude: '', toolsExclude: '',
  }
}

export function formOf(server: McpServer): McpForm {
  const rows = (hints: McpServer['env']): SecretRow[] => hints.map((h) => ({ name: h.name, value: '', stored: h.last4 }))
  return {
    name: server.name,
    transport: server.transport,
    command: server.command,
    args: server.args.join('\n'),
    env: rows(server.env),
    url: server.url,
    headers: rows(server.headers),
    enabled: server.enabled,
    approval: server.approval,
    timeoutS: server.timeoutS,
    connectTimeoutS: server.connectTimeoutS,
    toolsInclude: server.toolsInclude.join('\n'),
    toolsExclude: server.toolsExclude.join('\n'),
  }
}

/** Rows with a name, as the API takes them: a stored row left empty keeps its value (null). */
function secrets(rows: SecretRow[], editing: boolean): Record<string, string | null> {
  const out: Record<string, string | null> = {}
  for (const row of rows) {
    const name = row.name.trim()
    if (!name) continue
    out[name] = editing && row.stored !== null && row.value === '' ? null : row.value
  }
  return out
}

function argsOf(text: string): string[] {
  return text.split('\n').map((line) => line.trim()).filter(Boolean)
}

/** The request body: only the fields of the chosen transport, timeouts only when set. */
export function bodyOf(form: McpForm, editing: boolean): McpServerCreate | McpServerUpdate {
  const body: McpServerUpdate = {
    transport: form.transport, enabled: form.enabled, approval: form.approval,
    toolsInclude: argsOf(form.toolsInclude), toolsExclude: argsOf(form.toolsExclude),
  }
  if (form.transport === 'stdio') {
    Object.assign(body, { command: form.command.trim(), args: argsOf(form.args), env: secrets(form.env, editing) })
  } else {
    Object.assign(body, { url: form.url.trim(), headers: secrets(form.headers, editing) })
  }
  if (form.timeoutS) body.timeoutS = form.timeoutS
  if (form.connectTimeoutS) body.connectTimeoutS = form.connectTimeoutS
  return editing ? body : ({ ...body, name: form.name.trim() } as McpServerCreate)
}

/** hermes' name of a server's tool (`mcp__<server>__<tool>`, hyphens as underscores). */
export function toolName(server: string, tool: string): string {
  const safe = (value: string) => value.replace(/[^A-Za-z0-9_]/g, '_')
  return `mcp__${safe(server)}__${safe(tool)}`
}
