// This repository edits itself with its own edit tool. Where the native
// module does not load, the file exports no tool (OpenCode registers only
// exports shaped as tools), so OpenCode's own edit stays rather than one that
// fails every call, and the reason goes to the log once.
import editTool from "../../opencode/edit.mjs"
import { nativeModule } from "../../opencode/engine.mjs"

let usable: typeof editTool | undefined = editTool
try {
  nativeModule()
} catch (err) {
  console.warn(`hashline is off, OpenCode's own edit stays: ${err instanceof Error ? err.message : String(err)}`)
  usable = undefined
}
export default usable
