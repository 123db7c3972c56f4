// Types of `hashline/cli`: the command line, for a package that runs it
// under its own name (hashline-mcp runs `hashline mcp`'s).

/**
 * Runs the command line on `argv` (the arguments after the program's name)
 * and prints its outcome; the exit status is left in `process.exitCode`.
 * `program` is the name the user typed, which help and errors use.
 */
export declare function main(argv: string[], program?: string): Promise<void>
