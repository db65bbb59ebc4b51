// What the server runs with (GET /api/info): version, agent toolsets, access, bridges.
import { http } from './http'
import type { ServerInfo } from './schema'

export type { ServerInfo }

export const infoApi = {
  get: () => http.get<ServerInfo>('/api/info'),
}
