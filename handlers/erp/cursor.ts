// `query_entity` cursors (DECISIONS §16): a sealed wrap of the upstream's `@odata.nextLink`, the
// environment it reads and the OData options the gateway sent on the first page. A next link is
// accepted only when it points back to the configured ERP API at this company's set and keeps
// exactly those options plus one `$skiptoken` (server-driven paging adds nothing else); it is
// checked when the upstream hands it out (minting) and again when a caller follows it.
import type { SealedTokens } from '#runtime/handler-api/tool-context.ts';
import { ENVIRONMENT_LEVEL_SET } from './allow-list.ts';
import { isRow } from './client.ts';

/** The OData options of a first-page request, by name, as the gateway sent them (values unencoded). */
export type SentQuery = Readonly<Record<string, string>>;

/** What a cursor carries. */
export interface CursorPayload {
  readonly link: string;
  readonly environment: string;
  readonly query: SentQuery;
}

/** The only option server-driven paging adds to a next link (upstreams/erp.md §2, "Paging"). */
const SKIP_TOKEN = '$skiptoken';

/**
 * A cursor belongs to one company and one entity set (DECISIONS §16); account and instance are bound by `ctx.tokens`.
 */
export function cursorBinding(companyId: string, entitySet: string): string {
  return `query_entity\u0000${companyId.toLowerCase()}\u0000${entitySet.toLowerCase()}`;
}

/**
 * The path of a set (and record) relative to `{B}/api/v2.0`: company-scoped, except the environment-level
 * subscriptions.
 */
export function setPath(companyId: string, entitySet: string): string {
  return entitySet === ENVIRONMENT_LEVEL_SET ? `/${entitySet}` : `/companies(${companyId})/${entitySet}`;
}

/**
 * True when the link's query is the sent options, each once with the value sent, plus exactly one
 * non-empty `$skiptoken`, and nothing else: no added `$expand`, bigger `$top`, `callback`, changed
 * `$filter`, dropped option or second `$skiptoken`.
 */
function keepsOnlySentOptions(url: URL, sent: SentQuery): boolean {
  const seen = new Set<string>();
  let skipTokens = 0;
  for (const [name, value] of url.searchParams) {
    if (name === SKIP_TOKEN) {
      skipTokens++;
      if (skipTokens > 1 || value === '') return false;
      continue;
    }
    if (seen.has(name) || !Object.hasOwn(sent, name) || sent[name] !== value) return false;
    seen.add(name);
  }
  return skipTokens === 1 && seen.size === Object.keys(sent).length;
}

/**
 * The next link when it points back to the configured ERP API, at this company's set in the
 * cursor's environment, with only the sent options and a skip token: same origin and path prefix
 * as the configured base, no userinfo, no fragment,
 * `/v2.0/[tenant/]<environment>/api/v2.0/companies(<companyId>)/<set>`; otherwise undefined.
 */
export function acceptedNextLink(
  baseUrl: string,
  payload: CursorPayload,
  companyId: string,
  entitySet: string,
): string | undefined {
  let url: URL;
  let base: URL;
  try {
    url = new URL(payload.link);
    base = new URL(baseUrl);
  } catch {
    return undefined;
  }
  if (url.username !== '' || url.password !== '' || url.hash !== '' || url.origin !== base.origin) return undefined;
  const prefix = base.pathname.replace(/\/+$/, '');
  if (!url.pathname.startsWith(`${prefix}/`)) return undefined;
  const match = /^\/v2\.0\/(?:[^/]+\/)?([^/]+)\/api\/v2\.0(\/.+)$/.exec(url.pathname.slice(prefix.length));
  if (!match) return undefined;
  let environment: string;
  try {
    environment = decodeURIComponent(match[1]!);
  } catch {
    return undefined;
  }
  if (environment.toLowerCase() !== payload.environment.toLowerCase()) return undefined;
  // Compared as sent (GUIDs and set names need no encoding): an encoded `/` never passes for one.
  if (match[2]!.toLowerCase() !== setPath(companyId, entitySet).toLowerCase()) return undefined;
  if (!keepsOnlySentOptions(url, payload.query)) return undefined;
  return url.href;
}

/** The sealed cursor of a checked payload. */
export function sealCursor(tokens: SealedTokens, payload: CursorPayload, companyId: string, entitySet: string): string {
  return tokens.seal(JSON.stringify(payload), cursorBinding(companyId, entitySet));
}

/**
 * The payload of a cursor minted for this company and set, unchecked; undefined when it is not one (or predates the
 * sent options).
 */
export function openCursorPayload(
  tokens: SealedTokens,
  cursor: string,
  companyId: string,
  entitySet: string,
): CursorPayload | undefined {
  const plain = tokens.open(cursor, cursorBinding(companyId, entitySet));
  let payload: unknown;
  try {
    payload = plain === undefined ? undefined : JSON.parse(plain);
  } catch {
    return undefined;
  }
  if (!isRow(payload) || typeof payload['link'] !== 'string' || typeof payload['environment'] !== 'string')
    return undefined;
  const query = payload['query'];
  if (!isRow(query) || !Object.values(query).every((value) => typeof value === 'string')) return undefined;
  return { link: payload['link'], environment: payload['environment'], query: query as SentQuery };
}
