// The page's names for the API's types. Every shape here is GENERATED from the server's OpenAPI
// document (openapi.d.ts, `make api-types`); this module only names them. JSON is camelCase.
import type { components } from './openapi'

type Schemas = components['schemas']

export type AuthStatus = Schemas['AuthStatus']
export type ServerInfo = Schemas['ServerInfo']

export type Session = Schemas['SessionPublic']
export type SessionCreate = Schemas['SessionCreate']
export type SessionCreated = Schemas['SessionCreated']
export type SessionUpdate = Schemas['SessionUpdate']
export type SessionPage = Schemas['SessionPage']
export type SessionDetail = Schemas['SessionDetail']
export type SessionStats = Schemas['SessionStats']
export type Message = Schemas['MessagePublic']
export type MessagePage = Schemas['MessagePage']
export type Log = Schemas['LogPublic']
export type Version = Schemas['VersionPublic']
export type ActivateResult = Schemas['ActivateResult']
export type EditResult = Schemas['EditResult']

export type StartRunBody = Schemas['RunStart']
export type StartRunResult = Schemas['RunStarted']
export type Regenerated = Schemas['Regenerated']
export type RunSnapshot = Schemas['RunSnapshot']
export type RunLog = Schemas['RunLog']
export type PendingClarify = Schemas['PendingClarify']
export type ResetResult = Schemas['ResetResult']
export type SessionMemory = Schemas['MemoryView']
export type RecentToolCall = Schemas['ToolCallPublic']
export type MemoryUpdate = Schemas['MemoryUpdate']

export type Model = Schemas['ModelPublic']
export type ModelCreate = Schemas['ModelCreate']
export type ModelUpdate = Schemas['ModelUpdate']
export type ModelTestResult = Schemas['ModelTestResult']
export type Skill = Schemas['SkillSummary']
export type SkillDetail = Schemas['SkillDetail']
