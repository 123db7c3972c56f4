// @ts-check
// Loaded by ava into every test process (package.json, ava.require): the
// test tools that `npm install` puts in the clone (scripts/tools.mjs) come
// first on the PATH, for the tests and every process they start, however
// ava was started. And no test records into the user's telemetry folder:
// the engines of this process and of every process it starts record into
// a scratch folder of its own, removed when it exits.
import fs from "node:fs"
import os from "node:os"
import path from "node:path"
import { toolsEnv } from "../../scripts/tools.mjs"

Object.assign(process.env, toolsEnv())

const telemetry = fs.mkdtempSync(path.join(os.tmpdir(), "hashline-test-telemetry-"))
process.env.HASHLINE_TELEMETRY_DIR = telemetry
process.on("exit", () => fs.rmSync(telemetry, { recursive: true, force: true }))
