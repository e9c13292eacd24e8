// Which MCP revision a request speaks, and the checks the 2026-07-28 revision makes before any
// method runs. One endpoint serves both eras (the revision's "dual-era server"):
// - modern (2026-07-28): stateless, every request carries its protocol version and client
//   capabilities in `params._meta`, and its method (and tool name) in the `Mcp-Method` /
//   `Mcp-Name` headers; no initialize, no ping; results carry `resultType` and server identity;
// - legacy (2025-03-26, 2025-06-18, 2025-11-25): the initialize handshake, unchanged.
// The body decides (a `_meta` protocol-version claim), the headers are cross-checked; a request
// whose header names a modern revision but whose body has no envelope is refused rather than
// served as legacy. Rules and their order follow the revision's basic/versioning and
// transports/streamable-http sections (docs/decisions/mcp-surface.md, 'MCP 2026-07-28 served
// beside the 2025 revisions, decided per request').
import { protocolText } from '../protocol-text.ts';
import { ErrorCode, RATE_LIMITED, SERVED_PROTOCOL_VERSIONS, UNAUTHORIZED } from './protocol.ts';

/** Revisions served statelessly (the 2026 era), newest first. */
export const MODERN_PROTOCOL_VERSIONS: readonly string[] = ['2026-07-28'];

/** Every revision this gateway serves, newest first: `server/discover` and the -32022 data list it. */
export const ALL_PROTOCOL_VERSIONS: readonly string[] = [...MODERN_PROTOCOL_VERSIONS, ...SERVED_PROTOCOL_VERSIONS];

export const META_PROTOCOL_VERSION = 'io.modelcontextprotocol/protocolVersion';
export const META_CLIENT_CAPABILITIES = 'io.modelcontextprotocol/clientCapabilities';
export const META_CLIENT_INFO = 'io.modelcontextprotocol/clientInfo';
export const META_SERVER_INFO = 'io.modelcontextprotocol/serverInfo';

/** MCP 2026-07-28 error codes (the MCP-reserved sub-range). */
export const HEADER_MISMATCH = -32020;
export const UNSUPPORTED_PROTOCOL_VERSION = -32022;
/** MissingRequiredClientCapabilityError: the request needs a capability its client did not declare. */
export const MISSING_CLIENT_CAPABILITY = -32021;

/** A refusal of the revision checks: HTTP status, JSON-RPC error, optional data. */
export interface RevisionRefusal {
  readonly ok: false;
  readonly status: number;
  readonly code: number;
  readonly message: string;
  readonly data?: unknown;
}

export type Revision =
  | { readonly ok: true; readonly era: 'legacy' }
  | { readonly ok: true; readonly era: 'modern'; readonly version: string }
  | RevisionRefusal;

const LEGACY: Revision = Object.freeze({ ok: true, era: 'legacy' });

type Headers = Readonly<Record<string, string | string[] | undefined>>;

/** A header's value with surrounding spaces and tabs removed (RFC 9110 §5.5); absent when not sent. */
function header(headers: Headers, name: string): string | undefined {
  const value = headers[name];
  if (value === undefined) return undefined;
  return (Array.isArray(value) ? value.join(', ') : value).replace(/^[ \t]+|[ \t]+$/g, '');
}

const BASE64_SENTINEL = /^=\?base64\?([A-Za-z0-9+/]*={0,2})\?=$/;

/** An `Mcp-Name` value, decoded from its `=?base64?…?=` form; undefined when that form is broken. */
export function decodeHeaderValue(value: string): string | undefined {
  if (!value.startsWith('=?base64?')) return value;
  const m = BASE64_SENTINEL.exec(value);
  if (!m || m[1]!.length % 4 !== 0) return undefined;
  const decoded = Buffer.from(m[1]!, 'base64').toString('utf8');
  return Buffer.from(decoded, 'utf8').toString('base64') === m[1] ? decoded : undefined;
}

/** Whether a version string names the 2026 era or later (an unknown future date sorts after it). */
function isModernName(version: string): boolean {
  return (
    MODERN_PROTOCOL_VERSIONS.includes(version) ||
    (/^\d{4}-\d{2}-\d{2}$/.test(version) && version > MODERN_PROTOCOL_VERSIONS.at(-1)!)
  );
}

function refuse(status: number, code: number, message: string, data?: unknown): RevisionRefusal {
  return data === undefined ? { ok: false, status, code, message } : { ok: false, status, code, message, data };
}

/** A value quoted in a refusal, cut short (it comes from the client). */
const quoted = (value: string) => (value.length > 200 ? `${value.slice(0, 200)}…` : value);

function mismatch(name: string, headerValue: string, bodyValue: string): RevisionRefusal {
  return refuse(
    400,
    HEADER_MISMATCH,
    protocolText('header_mismatch', { header: name, header_value: quoted(headerValue), body_value: quoted(bodyValue) }),
  );
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The problem of an envelope, or undefined when it is well-formed. */
function envelopeProblem(meta: Record<string, unknown>): string | undefined {
  if (typeof meta[META_PROTOCOL_VERSION] !== 'string') return `${META_PROTOCOL_VERSION}: must be a string`;
  if (!(META_CLIENT_CAPABILITIES in meta)) return `${META_CLIENT_CAPABILITIES}: required`;
  if (!isObject(meta[META_CLIENT_CAPABILITIES])) return `${META_CLIENT_CAPABILITIES}: must be an object`;
  const info = meta[META_CLIENT_INFO];
  if (info !== undefined && (!isObject(info) || typeof info.name !== 'string' || typeof info.version !== 'string'))
    return `${META_CLIENT_INFO}: must be an object with a string name and version`;
  return undefined;
}

/**
 * The revision of one JSON-RPC request (`method`, `params`) with the HTTP headers it came with, or
 * the refusal the 2026-07-28 revision prescribes. Legacy requests pass unchanged (their own
 * checks follow elsewhere).
 */
export function requestRevision(method: string, params: Record<string, unknown>, headers: Headers): Revision {
  const headerVersion = header(headers, 'mcp-protocol-version');
  const meta = params._meta;
  const claim = isObject(meta) && META_PROTOCOL_VERSION in meta ? meta[META_PROTOCOL_VERSION] : undefined;
  if (
    claim === undefined ||
    (typeof claim === 'string' && !isModernName(claim) && SERVED_PROTOCOL_VERSIONS.includes(claim))
  ) {
    // No envelope (or one naming a 2025 revision, which selects legacy semantics).
    if (headerVersion !== undefined && isModernName(headerVersion)) {
      if (method === 'initialize')
        return mismatch('MCP-Protocol-Version', headerVersion, 'initialize (a 2025 handshake)');
      return refuse(400, ErrorCode.InvalidParams, protocolText('envelope_missing', { version: headerVersion }));
    }
    return LEGACY;
  }
  const problem = envelopeProblem(meta as Record<string, unknown>);
  const version = typeof claim === 'string' ? claim : MODERN_PROTOCOL_VERSIONS[0]!;
  if (problem) return refuse(400, ErrorCode.InvalidParams, protocolText('envelope_invalid', { version, problem }));
  if (headerVersion !== undefined && headerVersion !== version)
    return mismatch('MCP-Protocol-Version', headerVersion, version);
  const headerMethod = header(headers, 'mcp-method');
  if (headerMethod !== undefined && headerMethod !== method) return mismatch('Mcp-Method', headerMethod, method);
  if (!MODERN_PROTOCOL_VERSIONS.includes(version)) {
    return refuse(
      400,
      UNSUPPORTED_PROTOCOL_VERSION,
      protocolText('protocol_version_unsupported', { requested: version, supported: ALL_PROTOCOL_VERSIONS.join(', ') }),
      {
        supported: ALL_PROTOCOL_VERSIONS,
        requested: version,
      },
    );
  }
  if (headerVersion === undefined)
    return refuse(
      400,
      HEADER_MISMATCH,
      protocolText('header_missing', { header: 'MCP-Protocol-Version', method, version }),
    );
  if (headerMethod === undefined)
    return refuse(400, HEADER_MISMATCH, protocolText('header_missing', { header: 'Mcp-Method', method, version }));
  if (method === 'tools/call') {
    const raw = header(headers, 'mcp-name');
    if (raw === undefined)
      return refuse(400, HEADER_MISMATCH, protocolText('header_missing', { header: 'Mcp-Name', method, version }));
    const name = decodeHeaderValue(raw);
    const bodyName = typeof params.name === 'string' ? params.name : '';
    if (name === undefined) return mismatch('Mcp-Name', raw, bodyName);
    if (name !== bodyName) return mismatch('Mcp-Name', name, bodyName);
  }
  return { ok: true, era: 'modern', version };
}

/** The gateway's own error codes as a 2026 request gets them: application codes outside -32768…-32000. */
const MODERN_CODES: ReadonlyMap<number, number> = new Map([
  [UNAUTHORIZED, -31001],
  [RATE_LIMITED, -31029],
]);

export function modernCode(code: number): number {
  return MODERN_CODES.get(code) ?? code;
}

/** Whether the headers alone say a request speaks the 2026 era (before its body is read). */
export function headersSayModern(headers: Headers): boolean {
  const version = header(headers, 'mcp-protocol-version');
  return version !== undefined && isModernName(version);
}
