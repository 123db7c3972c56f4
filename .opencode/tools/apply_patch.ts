// GPT models edit this repository with its own apply_patch tool, where the
// native module loads; otherwise the file exports no tool and OpenCode's own
// apply_patch stays (edit.ts says why in the log).
import patchTool from "../../opencode/patch.mjs"
import { nativeModule } from "../../opencode/engine.mjs"

let usable: typeof patchTool | undefined = patchTool
try {
  nativeModule()
} catch {
  usable = undefined
}
export default usable
