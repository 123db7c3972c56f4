// This repository edits itself with its own edit tool.
export { default } from "../../opencode/tool.mjs"
