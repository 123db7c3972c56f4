// GPT models edit this repository with its own apply_patch tool.
export { default } from "../../opencode/patch.mjs"
