// The parts of OpenCode 2's plugin contract that the OpenCode 2 half uses,
// declared here because no OpenCode 2 package is on a registry this project
// reaches (see the sources cited at the top of v2.mjs).

export interface V2ToolContext {
  sessionID: string
  agent?: string
  messageID: string
  /** The call's id. */
  id: string
  signal?: AbortSignal
}

export interface V2ToolResult {
  output?: unknown
  content?: string | ReadonlyArray<{ type: string; [key: string]: unknown }>
  metadata?: Record<string, unknown>
}

export interface V2ToolInfo {
  name: string
  description: string
  input: object
  options?: { codemode?: boolean; permission?: string; namespace?: string }
  freeform?: { input: string; name: string }
  execute(input: unknown, context: V2ToolContext): Promise<V2ToolResult>
}

export interface V2ToolEditor {
  add(tool: V2ToolInfo): void
}

export type V2ToolHookEvent = {
  tool: string
  sessionID: string
  messageID: string
  id: string
  input: unknown
} & ({ status?: undefined } | { status: "completed"; result: V2ToolResult } | { status: "error"; error: { message: string } })

export interface V2Registration {
  dispose(): Promise<void>
}

export interface V2Context {
  options?: Record<string, unknown>
  location?: { directory: string }
  tool: {
    transform(callback: (editor: V2ToolEditor) => void): Promise<V2Registration>
    hook(name: "execute.before" | "execute.after", callback: (event: any) => Promise<void> | void): Promise<V2Registration>
  }
  session?: {
    hook(name: "context", callback: (event: any) => Promise<void> | void): Promise<V2Registration>
  }
}

/** OpenCode 2's entry: registers hashline's tools and hooks on `ctx`. */
export declare function setup(ctx: V2Context): Promise<void>
