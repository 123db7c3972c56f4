// Refs in read and grep output, write clean-up and the system instruction.
export { default } from "../../opencode/plugin.mjs"
