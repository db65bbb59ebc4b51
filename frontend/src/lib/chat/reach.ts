// What a chat reaches besides its toolsets: the MCP servers it turned off, and the model that
// writes its summaries (null: its own). Kept with the chat on the server (PATCH the session).
export interface ChatReach {
  mcpOff: string[]
  compressionModelId: number | null
}

/** The offered servers this chat uses (in the offered order). */
export function serversOn(offered: string[], off: string[]): string[] {
  return offered.filter((name) => !off.includes(name))
}

/** The chat's new off list when `on` are checked: the offered ones left out, plus those it
 * had turned off that are no longer offered (switched off on the Tools page: kept). */
export function offAfter(offered: string[], on: (string | number)[], previousOff: string[]): string[] {
  const off = offered.filter((name) => !on.includes(name))
  return [...off, ...previousOff.filter((name) => !offered.includes(name))].sort()
}

/** The chat's "allow for this chat" key of an MCP server ("mcp:<server>"), or null. */
export function mcpServerOfKey(key: string): string | null {
  return key.startsWith('mcp:') ? key.slice(4) : null
}
