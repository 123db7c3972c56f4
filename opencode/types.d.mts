// The native binding's types, as the OpenCode layer names them.
import type * as native from "../index.js"

export type HashlineModule = typeof native
export type HashlineInstance = native.Hashline
export type ShownLine = native.ShownLine
export type TagResult = native.TagResult
export type EditRequest = native.EditRequest
export type EditPlan = native.EditPlan
export type EditResult = native.EditResult
export type PatchPlan = native.PatchPlan
export type PatchResult = native.PatchResult
export type PatchFile = native.PatchFile
export type Problem = native.Problem
