// A pause for a dangerous command (the bridge's approval, events contract `Pause.approval`): the
// page answers it with one of three choices only, because the bridge takes any other text for
// "Deny". The choices go back to the server in English (APPROVAL_CHOICES of the contract) and
// are shown in the page's language. A snapshot's pending question carries no `approval`: it is
// told by its choices and read from its question ("Allow this command (DESCRIPTION)?\nCOMMAND",
// or for a call of an MCP server's tool "Allow the tool TOOL of the MCP server SERVER?\nARGS").
import type { Approval, McpOrigin, PendingClarify } from '@/api/schema'

export const APPROVAL_CHOICES = ['Allow once', 'Allow for this chat', 'Deny'] as const
export type ApprovalChoice = (typeof APPROVAL_CHOICES)[number]

/** The i18n key of each choice's words. */
export const CHOICE_KEYS: Record<ApprovalChoice, string> = {
  'Allow once': 'thinking.approval.once',
  'Allow for this chat': 'thinking.approval.session',
  Deny: 'thinking.approval.deny',
}

const QUESTION = /^Allow this command \(([^\n]*)\)\?\n([\s\S]*)$/
const MCP_QUESTION = /^Allow the tool (\S+) of the MCP server (\S+)\?(?:\n([\s\S]*))?$/

/** What an approval asks: a dangerous command, or (`mcp`) a call of an MCP server's tool. */
export interface ApprovalView {
  command: string
  description: string
  mcp: McpOrigin | null
}

export type PendingAsk = PendingClarify & { approval?: Approval | null }

function isApprovalChoices(choices: readonly string[]): boolean {
  return choices.length === APPROVAL_CHOICES.length && APPROVAL_CHOICES.every((c, i) => choices[i] === c)
}

/** The command a pause asks to allow, or null for an ordinary clarify question. */
export function approvalOf(ask: PendingAsk): ApprovalView | null {
  const given = ask.approval
  if (given?.command) return { command: given.command, description: given.description ?? '', mcp: given.mcp ?? null }
  if (!isApprovalChoices(ask.choices)) return null
  const parsed = QUESTION.exec(ask.question)
  if (parsed) return { command: parsed[2], description: parsed[1], mcp: null }
  const call = MCP_QUESTION.exec(ask.question)
  if (!call) return null
  const [, tool, server, args] = call
  return { command: `${tool} ${args ?? ''}`.trim(), description: server, mcp: { server, tool } }
}

/** The i18n key of an approval answer (a stored record), or null for any other answer. */
export function approvalAnswerKey(question: string, answer: string): string | null {
  if (!(QUESTION.test(question) || MCP_QUESTION.test(question)) || !(answer in CHOICE_KEYS)) return null
  return CHOICE_KEYS[answer as ApprovalChoice]
}

/** The waiting question that a free answer may answer: not a dangerous command, whose answer
 * is one of its three buttons (any other text would be taken for "Deny"). */
export function freeAnswerQuestion<T extends PendingAsk>(ask: T | null): T | null {
  return ask && !approvalOf(ask) ? ask : null
}
