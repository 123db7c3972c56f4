// @ts-check
// A verdaccio registry for the package tests: storage in the given folder,
// no uplinks (it serves only what is published to it, and never reaches out),
// listening on 127.0.0.1 on a port the system picks. Prints that port as one
// JSON line, then serves until it is killed.
//
// Usage: node registry-server.mjs DIR
import fs from "node:fs"
import path from "node:path"
import { runServer } from "verdaccio"

const dir = path.resolve(process.argv[2] ?? "")
fs.mkdirSync(path.join(dir, "storage"), { recursive: true })
const app = await runServer({
  self_path: dir,
  storage: path.join(dir, "storage"),
  auth: { htpasswd: { file: path.join(dir, "htpasswd"), max_users: 10 } },
  uplinks: {},
  packages: { "**": { access: "$all", publish: "$authenticated", unpublish: "$authenticated" } },
  middlewares: { audit: { enabled: false } },
  web: { enable: false },
  publish: { allow_offline: true },
  max_body_size: "200mb",
  log: { type: "stdout", format: "json", level: "error" },
})
const server = app.listen(0, "127.0.0.1", () => {
  const address = server.address()
  process.stdout.write(`${JSON.stringify({ port: typeof address === "object" && address ? address.port : 0 })}\n`)
})
