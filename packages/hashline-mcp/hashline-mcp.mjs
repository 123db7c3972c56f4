#!/usr/bin/env node
// @ts-check
// `npx -y hashline-mcp [options]`: the hashline MCP server on stdio, for
// hosts that start MCP servers by command. It is `hashline mcp [options]`
// under its own name, the same command line (`hashline-mcp --help` lists
// its options); this package exists to bring the MCP SDK that hashline does
// not depend on.
import { createRequire } from "node:module"

/** @type {typeof import("hashline/cli")} */
const { main } = createRequire(import.meta.url)("hashline/cli")
await main(["mcp", ...process.argv.slice(2)], "hashline-mcp")
