// Runs: start, regenerate, state snapshot, clarify answer, stop (docs/contracts.md "Runs").
import { http, query } from './http'
import type { Regenerated, RunSnapshot, StartRunBody, StartRunResult } from './schema'

export const runsApi = {
  start: (sessionId: number, body: StartRunBody) =>
    http.post<StartRunResult>(`/api/chat/sessions/${sessionId}/runs`, body),
  regenerate: (messageId: number) => http.post<Regenerated>(`/api/chat/messages/${messageId}/regenerate`),
  state: (runId: string) => http.get<RunSnapshot>(`/api/chat/runs/${encodeURIComponent(runId)}/state`),
  resume: (runId: string, clarifyId: string, answer: string) =>
    http.post<RunSnapshot>(`/api/chat/runs/${encodeURIComponent(runId)}/clarify`, { clarifyId, answer }),
  stop: (runId: string) => http.post<RunSnapshot>(`/api/chat/runs/${encodeURIComponent(runId)}/stop`),
  /** The multiplexed stream of several runs, each resumed after its last seen event id. */
  streamUrl: (runs: { runId: string; lastEventId: number }[]) =>
    `/api/chat/stream${query({
      runs: runs.map((r) => r.runId).join(','),
      lastEventIds: runs.map((r) => r.lastEventId).join(','),
    })}`,
}
