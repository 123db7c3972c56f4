// @ts-check
// Loaded by ava into every test process (package.json, ava.require): the
// test tools that `npm install` puts in the clone (scripts/tools.mjs) come
// first on the PATH, for the tests and every process they start, however
// ava was started. (The scratch telemetry folder is set in ava.config.mjs.)
import { toolsEnv } from "../../scripts/tools.mjs"

Object.assign(process.env, toolsEnv())
