// Types of `hashline/server` and `hashline/opencode/plugin`: the OpenCode
// plugin. Declared without OpenCode's packages; the module fits
// `PluginModule` of `@opencode-ai/plugin`.
import type { HashlineOpencodeTool } from "./edit.d.mts"
import type { V2Context } from "./v2-types.d.mts"

/** The parts of what OpenCode passes to a plugin that hashline uses. */
export interface PluginInput {
  /** The session's folder. */
  directory: string
  /** The project's worktree ("/" outside a repository). */
  worktree: string
  /** OpenCode's SDK client: where the plugin logs why it is off, if it is. */
  client?: unknown
}

/** The hooks the plugin returns: none when the native module cannot load. */
export interface HashlineHooks {
  tool?: { [name: string]: HashlineOpencodeTool }
  "tool.execute.before"?: (input: { tool: string; callID: string }, output: { args: any }) => Promise<void>
  "tool.execute.after"?: (input: { tool: string; callID: string }, output: { title: string; output: string; metadata: any }) => Promise<void>
  "experimental.chat.system.transform"?: (input: {}, output: { system: string[] }) => Promise<void>
}

declare const plugin: {
  id: "hashline"
  /** OpenCode 1's entry. */
  server(input: PluginInput): Promise<HashlineHooks>
  /** OpenCode 2's entry (untested against a real OpenCode 2). */
  setup(ctx: V2Context): Promise<void>
}
export default plugin
