// MCP tool servers: the Tools page (an administrator's) and the servers a chat is offered.
import { http } from './http'
import type { McpOffered, McpServer, McpServerCreate, McpServerState, McpServerUpdate, McpTestResult } from './schema'

export const mcpApi = {
  list: () => http.get<McpServer[]>('/api/mcp/servers'),
  create: (body: McpServerCreate) => http.post<McpServer>('/api/mcp/servers', body),
  update: (id: number, body: McpServerUpdate) => http.patch<McpServer>(`/api/mcp/servers/${id}`, body),
  remove: (id: number) => http.delete<void>(`/api/mcp/servers/${id}`),
  /** A saved server; with `changes` (the edit form's), as they would leave it (nothing saved). */
  test: (id: number, changes?: McpServerUpdate) => http.post<McpTestResult>(`/api/mcp/servers/${id}/test`, changes),
  /** The add form's values, before they are saved. */
  testNew: (body: McpServerCreate) => http.post<McpTestResult>('/api/mcp/test', body),
  status: () => http.get<McpServerState[]>('/api/mcp/status'),
  offered: () => http.get<McpOffered[]>('/api/mcp/offered'),
}
