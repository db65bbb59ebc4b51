// Whether the server can take questions now (GET /api/health, public).
import { http } from './http'
import type { Health } from './schema'

export type { Health }

export const healthApi = {
  get: () => http.get<Health>('/api/health'),
}
