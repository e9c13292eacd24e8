// What a handler may touch. The runtime issue widens this with the upstream client, clock and
// logger; handlers never see the caller's token, another instance's credential or the database.

export interface ToolContext {
  /** Connector instance the call came in on, e.g. `cases` or `cases-2`. */
  readonly instanceId: string;
  readonly accountId: string;
  /** Aborted when the call's deadline passes or the client goes away. */
  readonly signal: AbortSignal;
}

export type ToolHandler<Args, Result> = (args: Args, ctx: ToolContext) => Promise<Result>;
