// What narrows the tools a caller reaches, as stored: an API token's (or OAuth grant's) scope and an
// account's tool settings of one instance (docs/decisions/mcp-authorization.md).

/**
 * The scope of an API token: the connectors (keys) it may reach, per connector the toolsets it may
 * use (a connector absent from `toolsets` keeps every toolset), and read-only tools only.
 */
export interface TokenScope {
  readonly connectors: readonly string[];
  readonly toolsets?: Readonly<Record<string, readonly string[]>>;
  readonly readOnly?: boolean;
}

/**
 * An administrator's narrowing of one endpoint instance for the whole account: toolsets and tools
 * turned off, and read-only (docs/decisions/mcp-authorization.md, 'Tool settings of an instance').
 */
export interface InstanceToolSettings {
  readonly accountId: string;
  readonly instanceId: string;
  readonly disabledToolsets: readonly string[];
  readonly disabledTools: readonly string[];
  readonly readOnly: boolean;
  readonly updatedAt: Date;
}
