// The resource-server side of MCP authorization: an OAuth access token presented to an endpoint
// becomes the same identity (user + account) a pasted token gives, if it was issued for that very
// endpoint (RFC 8707 audience), has not expired, and its grant is not revoked. Looked up by hash in
// the store once, then held in memory until it expires or the platform's change version moves (a
// revoked grant bumps it, on every replica).
import type { Identity, PlatformState } from '../store/state.ts';
import type { McpGrant, Repositories } from '../store/store.ts';

interface Cached {
  readonly grant: McpGrant;
  readonly expiresAt: number;
  readonly version: number;
}

/** What `checkCaller` asks of a token lookup (transport/checks.ts `IdentityLookup`). */
export interface TokenLookup {
  known(tokenHash: string): Identity | undefined;
  identify(tokenHash: string): Promise<Identity | undefined>;
}

const MAX_CACHED = 10_000;

export class McpAccessTokens {
  readonly #store: Pick<Repositories, 'mcp'>;
  readonly #state: Pick<PlatformState, 'version' | 'user' | 'account'>;
  readonly #now: () => Date;
  readonly #cache = new Map<string, Cached>();

  constructor(
    store: Pick<Repositories, 'mcp'>,
    state: Pick<PlatformState, 'version' | 'user' | 'account'>,
    now: () => Date,
  ) {
    this.#store = store;
    this.#state = state;
    this.#now = now;
  }

  /** The lookup of one endpoint instance: a token bound to another endpoint is unknown there. */
  forEndpoint(instanceId: string): TokenLookup {
    return {
      known: (hash) => this.#identity(this.#cache.get(hash), instanceId),
      identify: async (hash) => {
        const version = this.#state.version;
        const found = await this.#store.mcp.findMcpAccessToken(hash);
        if (!found) return undefined;
        if (this.#cache.size >= MAX_CACHED) this.#cache.clear();
        const entry = { grant: found.grant, expiresAt: found.expiresAt.getTime(), version };
        this.#cache.set(hash, entry);
        return this.#identity(entry, instanceId);
      },
    };
  }

  #identity(entry: Cached | undefined, instanceId: string): Identity | undefined {
    if (!entry || entry.version !== this.#state.version || entry.expiresAt <= this.#now().getTime()) return undefined;
    if (!entry.grant.endpoints.includes(instanceId)) return undefined;
    const user = this.#state.user(entry.grant.userId);
    const account = this.#state.account(entry.grant.accountId);
    if (!user || !account || user.accountId !== account.id) return undefined;
    return { user, account, tokenId: `oauth:${entry.grant.id}`, scope: entry.grant.scope };
  }
}
