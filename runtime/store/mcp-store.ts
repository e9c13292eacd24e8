// MCP authorization's part of the platform store (docs/decisions/mcp-authorization.md): the
// assistants registered as OAuth clients, their grants, codes and tokens (codes and tokens only as
// hashes). store.ts names these with the other repositories.
import type { TokenScope } from './scopes.ts';

/** An assistant registered as an OAuth client (RFC 7591): public (no secret), so nothing here is secret. */
export interface McpClient {
  readonly clientId: string;
  readonly clientName: string;
  readonly redirectUris: readonly string[];
  /** The registered client metadata (RFC 7591 §2) as JSON, as answered to the client. */
  readonly metadata: string;
  readonly createdAt: Date;
}

/** One consent: a user let a client reach some endpoints; its codes and tokens hang off it. */
export interface McpGrant {
  readonly id: string;
  /** A registered client id, or the URL of a client ID metadata document. */
  readonly clientId: string;
  readonly clientName: string;
  readonly userId: string;
  readonly accountId: string;
  /** Endpoint instance ids the grant's tokens are bound to (RFC 8707 resources). */
  readonly endpoints: readonly string[];
  /** What the assistant asked to be narrowed to (OAuth `scope`); null: everything the user may do. */
  readonly scope: TokenScope | null;
  readonly createdAt: Date;
  readonly revokedAt: Date | null;
}

export interface McpCode {
  readonly grant: McpGrant;
  readonly redirectUri: string;
  readonly codeChallenge: string;
  readonly expiresAt: Date;
  readonly usedAt: Date | null;
}

export type McpSingleUse =
  | { readonly outcome: 'ok'; readonly grant: McpGrant }
  | { readonly outcome: 'used'; readonly grant: McpGrant }
  | { readonly outcome: 'expired' | 'missing' };

export interface McpTokenRow {
  readonly tokenHash: string;
  readonly kind: 'access' | 'refresh';
  readonly expiresAt: Date;
}

/**
 * MCP authorization (docs/decisions/mcp-authorization.md, 'The gateway is the OAuth authorization
 * server of the assistants'): clients, grants, codes and tokens (codes and tokens only as hashes,
 * so a copy of the database opens no assistant's access).
 */
export interface McpRepository {
  registerMcpClient(client: Omit<McpClient, 'createdAt'> & { source: string }): Promise<void>;
  getMcpClient(clientId: string): Promise<McpClient | null>;
  /** Stores a consent and its authorization code (by hash), in one transaction. */
  createMcpGrant(
    grant: Omit<McpGrant, 'createdAt' | 'revokedAt' | 'scope'> & { scope?: TokenScope | null },
    code: { codeHash: string; redirectUri: string; codeChallenge: string; expiresAt: Date },
  ): Promise<void>;
  /** The code and its grant (used, expired or revoked ones too); null when unknown. */
  findMcpCode(codeHash: string): Promise<McpCode | null>;
  /** Atomically marks the code used; only the first call for an unexpired code of a live grant gets 'ok'. */
  consumeMcpCode(codeHash: string, now: Date): Promise<McpSingleUse>;
  storeMcpTokens(grantId: string, tokens: readonly McpTokenRow[]): Promise<void>;
  /** Atomically marks a refresh token used (rotation); 'used' names the grant of a replayed one. */
  consumeMcpRefreshToken(tokenHash: string, now: Date): Promise<McpSingleUse>;
  /** The grant of an access token, and its expiry, when the grant is not revoked. */
  findMcpAccessToken(tokenHash: string): Promise<{ grant: McpGrant; expiresAt: Date } | null>;
  /** The grant of any token (access or refresh), revoked or not. */
  findMcpTokenGrant(tokenHash: string): Promise<McpGrant | null>;
  /** Revokes a grant and so every token of it; answers whether it was live. */
  revokeMcpGrant(grantId: string, at: Date): Promise<boolean>;
  getMcpGrant(grantId: string): Promise<McpGrant | null>;
  /** The account's grants (every account's when none is named), newest first. */
  listMcpGrants(accountId?: string): Promise<McpGrant[]>;
  /** Deletes codes and tokens that expired before `before`; answers how many. */
  purgeMcpAuthorization(before: Date): Promise<number>;
}
