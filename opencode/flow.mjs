// @ts-check
// The one edit flow of the OpenCode tools (`edit` and `apply_patch`): plan,
// ask with the diff, commit, then run the project's formatters on what was
// written and report the problems the change introduced. Each tool says
// what its plan, prompt, commit and result are; the order, the permission
// for paths a link leads out of the project, and the one retry when a file
// changed while the user looked at the diff are here.
import { report } from "./diagnostics.mjs"
import { engineCallAsync, toolError } from "./access.mjs"
import { errorCode } from "./engine.mjs"
import { formatWritten } from "./format.mjs"

/**
 * @typedef {import("@opencode-ai/plugin").ToolContext} ToolContext
 * @typedef {import("./format.mjs").FormatDeps} FormatDeps
 * @typedef {import("./types.mjs").HashlineInstance} HashlineInstance
 * @typedef {import("../index.js").Problem} Problem
 */

/**
 * @template Plan, Written, Result
 * @typedef {object} EditSteps
 * @property {boolean} outside whether access outside the project was granted already
 * @property {() => Promise<void>} leadsOutside asks for the places a path inside the project leads to through a link
 * @property {(outside: boolean) => Promise<Plan>} plan computes what would be written
 * @property {(plan: Plan) => Parameters<ToolContext["ask"]>[0]} permission OpenCode's prompt for the plan, with its diff
 * @property {(plan: Plan) => Promise<Written>} commit writes the plan
 * @property {(written: Written, outside: boolean) => Promise<Result>} finish formats what was written and puts the result together
 */

/**
 * Runs an edit through the flow: nothing is written unless the user allowed
 * this very diff.
 * @template Plan, Written, Result
 * @param {ToolContext} ctx
 * @param {EditSteps<Plan, Written, Result>} steps
 * @returns {Promise<Result>}
 */
export async function editFlow(ctx, steps) {
  let outside = steps.outside
  /** @type {Plan} */
  let planned
  try {
    planned = await steps.plan(outside)
  } catch (err) {
    // A path inside the project can still lead out of it through a link:
    // that needs the same permission as naming the outside path directly.
    if (outside || errorCode(err) !== "OUTSIDE_ROOT") throw toolError(err)
    await steps.leadsOutside()
    outside = true
    planned = await engineCallAsync(() => steps.plan(outside))
  }
  for (let attempt = 0; ; attempt++) {
    await ctx.ask(steps.permission(planned))
    /** @type {Written} */
    let written
    try {
      written = await steps.commit(planned)
    } catch (err) {
      // A file changed while the user looked at the diff: what was approved
      // is not what would be written, so plan again and show the new diff.
      if (errorCode(err) !== "BASE_CHANGED" || attempt > 0) throw toolError(err)
      planned = await engineCallAsync(() => steps.plan(outside))
      continue
    }
    return await steps.finish(written, outside)
  }
}

/**
 * @typedef {{ rev: string, headline: string, diff: string, additions: number, deletions: number, output: string, problems: Problem[] }} FileResult
 */

/**
 * One written file after the project's formatters: its result (the
 * formatted version's, if a formatter changed it), the notes about the
 * formatters, and the problems block OpenCode's own tools append.
 * @template {FileResult} R
 * @param {HashlineInstance} engine
 * @param {{ file: string, shown: string, written: R & { previousRev?: string }, outside: boolean }} what
 * @param {FormatDeps | undefined} formatting
 * @param {AbortSignal} signal the tool call's, which stops a formatter
 * @returns {Promise<{ result: R, notes: string[], errors: string }>}
 */
export async function settleFile(engine, { file, shown, written, outside }, formatting, signal) {
  const formatted = await formatWritten(
    engine,
    { file, shown, rev: written.rev, previousRev: written.previousRev, headline: written.headline, allowOutsideRoot: outside },
    formatting,
    signal,
  )
  const r = formatted.result
  const result = r ? { ...written, rev: r.rev, headline: r.headline, diff: r.diff, additions: r.additions, deletions: r.deletions, output: r.output, problems: r.problems } : written
  return { result, notes: formatted.notes, errors: report(file, result.problems) }
}
