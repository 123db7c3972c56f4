// @ts-check
// Which edit tool OpenCode gives a model. OpenCode 1.18 offers `apply_patch`
// instead of `edit` and `write` to models whose id contains "gpt-", except
// "oss" models and "gpt-4" (`tool/registry.ts`), deciding on the id the
// provider's API knows the model by.

/**
 * @typedef {import("../lib/texts.cjs").EditKind} EditKind
 */

/**
 * OpenCode's own rule, on the model id sent to the provider.
 * @param {string} modelID
 * @returns {EditKind}
 */
export function editKindOf(modelID) {
  return modelID.includes("gpt-") && !modelID.includes("oss") && !modelID.includes("gpt-4") ? "patch" : "edit"
}

/**
 * The id OpenCode applies its rule to, from the model object its hooks
 * receive: the API id, which a configured model may set apart from its key.
 * @param {unknown} model
 * @returns {string | undefined}
 */
export function modelIdOf(model) {
  if (!model || typeof model !== "object") return undefined
  const m = /** @type {{ api?: { id?: unknown }, id?: unknown, modelID?: unknown }} */ (model)
  for (const id of [m.api?.id, m.modelID, m.id]) if (typeof id === "string" && id !== "") return id
  return undefined
}

/**
 * Who made a call of one of the plugin's own tools, for the telemetry
 * record: the model that made it (`ctx.extra.model`, which OpenCode 1.18
 * passes to a plugin's tools but does not declare, so read with care) and
 * OpenCode's id of the call.
 * @param {unknown} ctx
 * @returns {{ model?: string, callId?: string }}
 */
export function callerOf(ctx) {
  if (!ctx || typeof ctx !== "object") return {}
  const c = /** @type {{ extra?: { model?: unknown }, callID?: unknown }} */ (ctx)
  const model = modelIdOf(c.extra?.model)
  const callId = typeof c.callID === "string" && c.callID !== "" ? c.callID : undefined
  return { ...(model ? { model } : {}), ...(callId ? { callId } : {}) }
}

/**
 * Whether read and grep output shows refs to a model with this tool. A model
 * with `edit` cites them. A model with `apply_patch` copies context lines: on
 * the edit-format benchmark (eval/editbench/REPORT.md), hunks citing a ref
 * after `@@` with little context cost a third fewer tokens and survive stale
 * reads, but go silently wrong more often than hunks with three lines of
 * context, so it reads OpenCode's plain view, which is also cheaper to read.
 * @param {EditKind} kind
 */
export function tagsReads(kind) {
  return kind === "edit"
}
