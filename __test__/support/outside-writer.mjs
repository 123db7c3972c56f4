// @ts-check
// Another program writing a file the engine edits: it rewrites the whole
// file with fs.writeFileSync in a loop, each version naming itself on its
// first line, with short random pauses, until it is told to stop on stdin
// or its time is up. It prints how many writes completed.
//
// Usage: node outside-writer.mjs '{"file", "maxMs"}'
import { writeFileSync } from 'node:fs'

const { file, maxMs } = JSON.parse(process.argv[2] ?? '{}')
const deadline = Date.now() + maxMs
const pause = new Int32Array(new SharedArrayBuffer(4))
const body = Array.from({ length: 200 }, (_, row) => `row ${row} ${'w'.repeat(40)}`).join('\n')

let stop = false
process.stdin.on('data', () => { stop = true })
process.stdin.on('end', () => { stop = true })

process.stdout.write('ready\n')
let writes = 0
while (!stop && Date.now() < deadline) {
  for (let i = 0; i < 16; i++) {
    writeFileSync(file, `writer ${writes}\n${body}\n`)
    writes++
    Atomics.wait(pause, 0, 0, Math.random() * 8)
  }
  await new Promise((resolve) => setImmediate(resolve))
}
process.stdout.write(`${writes}\n`)
