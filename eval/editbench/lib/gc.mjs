// @ts-check
// A `Hashline` session keeps file versions, their syntax trees and its store
// outside the JavaScript heap, behind a small wrapper: V8 sees little to
// collect, and the native side of a collected wrapper is only freed when
// the event loop next turns. A run that opens sessions by the thousand in
// a loop collects and yields every so often, or its memory grows without end.
import v8 from 'node:v8'
import vm from 'node:vm'

v8.setFlagsFromString('--expose-gc')
/** @type {() => void} */
const gc = vm.runInNewContext('gc')

let calls = 0
/** On every `every`-th call: collects garbage and lets the finalizers run. @param {number} every */
export async function settleEvery(every) {
  if (++calls % every !== 0) return
  gc()
  await new Promise((resolve) => setImmediate(resolve))
}
