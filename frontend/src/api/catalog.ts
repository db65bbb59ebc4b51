// Models and skills (docs/contracts.md "Models and skills").
import { http } from './http'
import type { Model, ModelInput, Skill } from './types'

function asList<T>(body: T[] | { items: T[] }): T[] {
  return Array.isArray(body) ? body : (body?.items ?? [])
}

export const modelsApi = {
  list: async () => asList(await http.get<Model[] | { items: Model[] }>('/api/models')),
  create: (body: ModelInput) => http.post<Model>('/api/models', body),
  update: (id: number, body: ModelInput) => http.patch<Model>(`/api/models/${id}`, body),
  remove: (id: number) => http.delete<void>(`/api/models/${id}`),
  test: (id: number) => http.post<Record<string, unknown>>(`/api/models/${id}/test`),
}

export const skillsApi = {
  list: async () => asList(await http.get<Skill[] | { items: Skill[] }>('/api/skills')),
  get: (folderName: string) => http.get<Skill>(`/api/skills/${encodeURIComponent(folderName)}`),
}
