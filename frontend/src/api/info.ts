// What the server runs with (GET /api/info): version, agent toolsets, access, bridges.
import { http } from './http'

export interface ServerInfo {
  version: string
  toolsets: string[]
  authRequired: boolean
  bridgeCount?: number
}

export const infoApi = {
  get: () => http.get<ServerInfo>('/api/info'),
}
