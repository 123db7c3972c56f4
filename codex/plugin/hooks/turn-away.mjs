#!/usr/bin/env node
// @ts-check
// Codex runs this before each apply_patch (hooks.json). Exit code 2 turns the
// call away, and Codex hands the model what was written to stderr as the
// call's result. The text is a copy, kept equal to the package's by a test.
// The event is read to its end first, so Codex never writes into a closed pipe.
for await (const _ of process.stdin);
process.stderr.write("apply_patch is turned off by the hashline plugin. Read the file with mcp__hashline__read, then change it with mcp__hashline__edit citing the refs the read shows (append creates a new file); mcp__hashline__apply changes several files as one.")
process.exitCode = 2
