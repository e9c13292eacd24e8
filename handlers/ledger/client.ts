// The ledger's wire side (upstreams/ledger.md §2): one login per tool call (`POST /login`, the
// session token is kept in this call's memory only and never stored or refreshed), then
// `POST /Query/Get/{Entity}` with a JSON array of QueryFilter entries. Failures map to the
// connector's texts as §3 #14/#15 say; anything else is rethrown for the generic text.
import type { LedgerContextWith } from '#generated/ledger/contract.ts';
import { UpstreamError } from '#runtime/handler-api/upstream-types.ts';

/** A row as the ledger returns it: PascalCase properties, null properties omitted. */
export type Row = Record<string, unknown>;

/** One entry of the Query/Get body: a filter, a sort entry or a paging entry. */
export interface QueryFilter {
  readonly PropertyName?: string;
  readonly FilterValue?: string;
  readonly OrderBy?: boolean;
  readonly OrderByDescending?: boolean;
  readonly Skip?: number;
  readonly Take?: number;
}

/** Every ledger tool can end with a refused login; `query`/`aggregate` also with a refused query. */
type SessionContext = LedgerContextWith<'generic' | 'reconnect_required'>;

export interface LedgerSession {
  /** The configured company id (as entered at connect time). */
  readonly companyId: string;
  /** One Query/Get read; the reply's rows (non-object entries are dropped). */
  query(entity: string, body: readonly QueryFilter[]): Promise<Row[]>;
}

export interface SessionOptions {
  /**
   * `query` and `aggregate`: a 4xx on Query/Get (other than 401 right after login, 408 and 429) is
   * the caller's entity or property names; the tool answers it (with `query_rejected`).
   */
  readonly onRejectedQuery?: (status: number) => never;
}

/** A Query/Get reply that is not a JSON array (the client sees the generic text). */
export class LedgerReplyError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'LedgerReplyError';
  }
}

/** Entity or table names the connector sends (a path segment: no `/`, `?`, `..` or spaces). */
const ENTITY_NAME = /^[A-Za-z][A-Za-z0-9_]{0,127}$/;

/** A caller-supplied entity name, or the generic text before any upstream request. */
export function entityName(ctx: LedgerContextWith<'generic'>, entity: string): string {
  if (!ENTITY_NAME.test(entity)) ctx.refuseArguments('generic');
  return entity;
}

function isRow(value: unknown): value is Row {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function tokenOf(body: unknown): string | undefined {
  if (!isRow(body)) return undefined;
  const token = body['token'] ?? body['Token'];
  return typeof token === 'string' && token !== '' ? token : undefined;
}

/** An error reply that is an HTML page (by content type or by its first character). */
function isHtmlPage(error: UpstreamError): boolean {
  const type = error.headers['content-type'];
  if (type !== undefined && /^\s*text\/html\b/i.test(type)) return true;
  return typeof error.body === 'string' && error.body.trimStart().startsWith('<');
}

/** Logs in with the connection's server-login user; every reply without a token is a reconnect. */
async function login(ctx: SessionContext): Promise<{ token: string; companyId: string }> {
  const credential = ctx.credential;
  if (credential?.kind !== 'login_company' || !credential.username || !credential.password || !credential.companyId)
    return ctx.fail('reconnect_required');
  let body: unknown;
  try {
    const response = await ctx.upstream.request<unknown>({
      method: 'POST',
      path: '/login',
      json: { Username: `00${credential.companyId}/${credential.username}`, Password: credential.password },
    });
    body = response.body;
  } catch (error) {
    if (error instanceof UpstreamError) {
      // A refused login (§3 #15): a 4xx from the WebAPI itself, except a throttle/quota answer or a
      // request timeout. An HTML page (a maintenance or proxy page, whatever its status) and a 2xx
      // that is not JSON are no answer of the WebAPI: like 5xx, timeouts and network failures they
      // are an outage and stay generic, so a working credential is never called invalid.
      const status = error.status ?? 0;
      const refused = status >= 400 && status < 500 && status !== 408 && status !== 429 && !isHtmlPage(error);
      if (refused) {
        ctx.log.info(
          { status, reason: typeof error.body === 'string' ? error.body.slice(0, 80) : undefined },
          'ledger login refused',
        );
        ctx.fail('reconnect_required');
      }
    }
    throw error;
  }
  const token = tokenOf(body);
  if (token === undefined) {
    // Uniconta answers a refused login with a bare JSON string ("NoCompanyId", "Invalid credentials").
    ctx.log.info({ reason: typeof body === 'string' ? body.slice(0, 80) : 'no token' }, 'ledger login refused');
    return ctx.fail('reconnect_required');
  }
  return { token, companyId: credential.companyId };
}

/** Logs in once for this tool call and returns the reader bound to that session. */
export async function openSession(ctx: SessionContext, options: SessionOptions = {}): Promise<LedgerSession> {
  const { token, companyId } = await login(ctx);
  let answered = false;
  return {
    companyId,
    async query(entity, body) {
      let reply: unknown;
      try {
        const response = await ctx.upstream.request<unknown>({
          method: 'POST',
          path: `/Query/Get/${encodeURIComponent(entity)}`,
          headers: { authorization: `Bearer ${token}` },
          json: body,
        });
        reply = response.body;
      } catch (error) {
        if (error instanceof UpstreamError && error.status !== undefined) {
          // A token that a fresh login just issued and that the first query refuses: the user or
          // company cannot read (§3 #15). A later 401 is an ordinary failure.
          if (error.status === 401 && !answered) ctx.fail('reconnect_required');
          const status = error.status;
          if (
            options.onRejectedQuery &&
            status >= 400 &&
            status < 500 &&
            status !== 401 &&
            status !== 408 &&
            status !== 429
          )
            options.onRejectedQuery(status);
        }
        throw error;
      }
      answered = true;
      if (!Array.isArray(reply)) throw new LedgerReplyError(`Query/Get/${entity} answered without an array`);
      return reply.filter(isRow);
    },
  };
}
