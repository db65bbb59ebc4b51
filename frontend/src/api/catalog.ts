// Models and skills (docs/contracts.md "Models and skills").
import { http } from './http'
import type { Model, ModelCreate, ModelTestResult, ModelUpdate, Skill, SkillDetail } from './schema'

export const modelsApi = {
  list: () => http.get<Model[]>('/api/models'),
  create: (body: ModelCreate) => http.post<Model>('/api/models', body),
  update: (id: number, body: ModelUpdate) => http.patch<Model>(`/api/models/${id}`, body),
  remove: (id: number) => http.delete<void>(`/api/models/${id}`),
  test: (id: number) => http.post<ModelTestResult>(`/api/models/${id}/test`),
}

export const skillsApi = {
  list: () => http.get<Skill[]>('/api/skills'),
  get: (folderName: string) => http.get<SkillDetail>(`/api/skills/${encodeURIComponent(folderName)}`),
}
