// MCP tool servers: the Tools page (an administrator's) and the servers a chat is offered.
import { http } from './http'
import type { McpOffered, McpServer, McpServerCreate, McpServerState, McpServerUpdate, McpTestResult } from './schema'

export const mcpApi = {
  list: () => http.get<McpServer[]>('/api/mcp/servers'),
  create: (body: McpServerCreate) => http.post<McpServer>('/api/mcp/servers', body),
  update: (id: number, body: McpServerUpdate) => http.patch<McpServer>(`/api/mcp/servers/${id}`, body),
  remove: (id: number) => http.delete<void>(`/api/mcp/servers/${id}`),
  test: (id: number) => http.post<McpTestResult>(`/api/mcp/servers/${id}/test`),
  status: () => http.get<McpServerState[]>('/api/mcp/status'),
  offered: () => http.get<McpOffered[]>('/api/mcp/offered'),
}
