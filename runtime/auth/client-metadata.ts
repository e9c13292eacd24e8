// Client ID metadata documents (MCP 2025-11-25 and 2026-07-28, draft-ietf-oauth-client-id-metadata-
// document): a client whose client_id is an https URL is described by the JSON document at that URL.
// Fetched with care against server-side request forgery: https only, no redirects, a host name (no
// IP literal, no localhost or internal suffix) that resolves to public addresses only — checked by
// the connection's own name resolution (public-egress.ts), so DNS rebinding cannot point it
// elsewhere between a check and the connection — a deadline and a size cap; the document's client_id
// must be the URL exactly, its redirect URIs must be acceptable, and it may not ask for client
// authentication (only public clients). Cached in memory per process, 5 minutes or the document's
// max-age (at most a day).
import type { Agent } from 'undici';
import { redirectUriAllowed } from './mcp-authorization.ts';
import { type PublicEgressOptions, publicEgressAgent } from './public-egress.ts';

export type MetadataFetch = (
  url: string,
  init: { signal: AbortSignal; redirect: 'error'; headers: Record<string, string> },
) => Promise<Response>;

export interface ClientDescription {
  readonly clientId: string;
  readonly clientName: string;
  readonly redirectUris: readonly string[];
}

const MAX_BYTES = 16 * 1024;
const TIMEOUT_MS = 5000;
const DEFAULT_TTL_MS = 5 * 60_000;
const MAX_TTL_MS = 24 * 3600_000;
const MAX_CACHED = 1000;

/**
 * The default fetch: undici's, over an Agent that connects to public addresses only (a host name
 * resolving to loopback, private, link-local, unique-local, CGNAT, multicast or unspecified
 * addresses, IPv4 or IPv6, fails before a socket opens). `options` are for tests.
 */
export function publicMetadataFetch(options: PublicEgressOptions = {}): MetadataFetch {
  let agent: Agent | undefined;
  return async (url, init) => {
    const { fetch } = await import('undici');
    agent ??= publicEgressAgent({ connectTimeoutMs: TIMEOUT_MS, ...options });
    // undici's Response is the WHATWG one the global fetch answers too.
    return (await fetch(url, { ...init, dispatcher: agent })) as unknown as Response;
  };
}

/** Whether a client_id names a metadata document (an https URL with a path), not a registered client. */
export function isMetadataDocumentId(clientId: string): boolean {
  return clientId.startsWith('https://');
}

/** The URL of a client_id that may be fetched, or undefined. */
function fetchableUrl(clientId: string): URL | undefined {
  if (clientId.length > 2000) return undefined;
  let url: URL;
  try {
    url = new URL(clientId);
  } catch {
    return undefined;
  }
  if (
    url.protocol !== 'https:' ||
    url.username ||
    url.password ||
    url.hash ||
    url.pathname === '/' ||
    url.href !== clientId
  )
    return undefined;
  if (/\/\.\.?(\/|$)/.test(url.pathname)) return undefined;
  const host = url.hostname.toLowerCase();
  // IP literals (v4 and v6) and local names: the gateway's own network is not the client's.
  if (host.startsWith('[') || /^[0-9.]+$/.test(host) || !host.includes('.')) return undefined;
  if (/(^|\.)(localhost|local|internal|localdomain|home\.arpa)$/.test(host)) return undefined;
  return url;
}

async function readCapped(response: Response): Promise<string | undefined> {
  const reader = response.body?.getReader();
  if (!reader) return undefined;
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > MAX_BYTES) {
      await reader.cancel().catch(() => {});
      return undefined;
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function maxAgeMs(header: string | null): number {
  const m = /max-age=(\d+)/i.exec(header ?? '');
  if (/no-store|no-cache/i.test(header ?? '')) return 0;
  return m ? Math.min(Number(m[1]) * 1000, MAX_TTL_MS) : DEFAULT_TTL_MS;
}

export class ClientMetadataDocuments {
  readonly #fetch: MetadataFetch;
  readonly #now: () => number;
  readonly #cache = new Map<string, { description: ClientDescription; until: number }>();

  constructor(fetchFn: MetadataFetch = publicMetadataFetch(), now: () => number = Date.now) {
    this.#fetch = fetchFn;
    this.#now = now;
  }

  /** The client the document at `clientId` describes, or undefined when it cannot be used. */
  async get(clientId: string): Promise<ClientDescription | undefined> {
    const cached = this.#cache.get(clientId);
    if (cached && cached.until > this.#now()) return cached.description;
    const url = fetchableUrl(clientId);
    if (!url) return undefined;
    let response: Response;
    let text: string | undefined;
    try {
      response = await this.#fetch(url.href, {
        signal: AbortSignal.timeout(TIMEOUT_MS),
        redirect: 'error',
        headers: { accept: 'application/json' },
      });
      if (response.status !== 200) {
        await response.body?.cancel().catch(() => {});
        return undefined;
      }
      text = await readCapped(response);
    } catch {
      return undefined;
    }
    if (text === undefined) return undefined;
    let doc: Record<string, unknown>;
    try {
      const parsed: unknown = JSON.parse(text);
      if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return undefined;
      doc = parsed as Record<string, unknown>;
    } catch {
      return undefined;
    }
    if (doc.client_id !== clientId) return undefined;
    const uris = doc.redirect_uris;
    if (!Array.isArray(uris) || uris.length === 0 || uris.length > 10 || !uris.every(redirectUriAllowed))
      return undefined;
    const method = doc.token_endpoint_auth_method;
    if (method !== undefined && method !== 'none') return undefined;
    const name =
      typeof doc.client_name === 'string' && doc.client_name.trim() ? doc.client_name.trim().slice(0, 200) : url.host;
    const description: ClientDescription = { clientId, clientName: name, redirectUris: uris };
    const ttl = maxAgeMs(response.headers.get('cache-control'));
    if (ttl > 0) {
      if (this.#cache.size >= MAX_CACHED) this.#cache.clear();
      this.#cache.set(clientId, { description, until: this.#now() + ttl });
    }
    return description;
  }
}
