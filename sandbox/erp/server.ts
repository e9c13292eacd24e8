// Sandbox fake of the ERP upstream, Microsoft Dynamics 365 Business Central API v2.0 (OData v4),
// reached over HTTP exactly like the real one. Built from ../shared/upstreams/erp.md (§2 wire
// contract, §4 checklist); the fake Entra endpoints of §4's last item live in sandbox/identity/.
//
//   GET {url}/environments/v1.2                                       environments (+ a foreign family)
//   GET {url}/admin/v2.x/applications/BusinessCentral/environments    403 (ordinary users, §3)
//   GET {url}/v2.0[/{tenant}]/{env}/api/v2.0                          service document
//   GET {url}/v2.0[/{tenant}]/{env}/api/v2.0/$metadata                EDMX
//   GET {url}/v2.0[/{tenant}]/{env}/api/v2.0/companies[({id})]        companies / one company
//   GET {url}/v2.0[/{tenant}]/{env}/api/v2.0/subscriptions[('{key}')] environment-level webhooks
//   GET {url}/v2.0[/{tenant}]/{env}/api/v2.0/companies({id})/{set}[({id})[/{navigation}]]
//   GET …/{set}/$count                                                plain-text count
//   anything but GET → 405, recorded in stats.writeLog (tests assert it stays empty)
//
// `{url}` is the configurable base (`basePath`, and `publicUrl` for the absolute links a proxy in
// front should see); the connector's cursor-origin check uses the same base. Every answer carries
// `OData-Version: 4.0`; errors are `{ "error": { "code", "message": "… CorrelationId: <guid>." } }`.
//
// Bearer tokens: a static token (ERP_SANDBOX_TOKEN, `accessToken` option) is accepted until the
// identity provider lands; an "unlicensed" static token answers 403; optionally a
// `verifyToken(token) → { valid, expired, licensed }` function (sandbox/identity/'s
// verifyAccessToken) decides for every other token.
//
// Sandbox-only controls (no auth; not recorded as upstream requests):
//   GET  /__sandbox/switches     current switches       POST /__sandbox/switches  a partial ErpSwitches
//   GET  /__sandbox/stats        counters and write log GET  /__sandbox/requests  the request log
//   POST /__sandbox/reset        stats, request log and switches back to their defaults
//
// Run as a script: `node sandbox/erp/server.ts` listens on 127.0.0.1:4105 (ERP_SANDBOX_PORT
// overrides; 0 picks a free port) and prints its URL, the static token and example requests.

import { createHmac, randomBytes, randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { closeOnce, PendingDelays, readBody, parseJsonLoose, sendText, listen, switchError } from '../http-kit.ts';
import {
  ERP_ENVIRONMENT_SETS,
  ERP_ENVIRONMENTS,
  ERP_SERVICE_DOCUMENT_SETS,
  ERP_TENANT_DOMAIN,
  ERP_TENANT_ID,
  type ErpCompany,
  type ErpEntitySchema,
  type ErpStoredRow,
  erpDataset,
  erpEtag,
  erpEnvironmentsBody,
  erpSchema,
} from './data.ts';
import { ODataError, type QueryOptions, parseOptions, selectRows, shapeRow } from './odata.ts';

/** The static bearer token accepted by default (tests and the demo, until the identity provider lands). */
export const ERP_SANDBOX_TOKEN = 'erp-sandbox-token-Vb7q2Lx9';
/** A static bearer token of a user without a Business Central licence: every API request answers 403. */
export const ERP_SANDBOX_UNLICENSED_TOKEN = 'erp-sandbox-unlicensed-Hk4w8Rt1';
/** Server maximum of rows per page (also the page size without `Prefer: odata.maxpagesize`). */
export const ERP_MAX_PAGE_SIZE = 20_000;
/** Default delay of the `slow` fault: over the connector's 30 s timeout. */
export const ERP_DEFAULT_SLOW_DELAY_MS = 35_000;
/** Retry-After of the `overCap` form: over the connector's 5 s cap. */
export const ERP_RETRY_AFTER_OVER_CAP_SECONDS = 30;
/** The request log keeps the newest this many requests. */
export const ERP_REQUEST_LOG_MAX = 5_000;

export interface ErpTokenVerdict {
  readonly valid: boolean;
  readonly expired?: boolean;
  /** False for a user without a Business Central licence (403). Default true. */
  readonly licensed?: boolean;
}

export type ErpTokenVerifier = (token: string) => ErpTokenVerdict | Promise<ErpTokenVerdict>;

export const ERP_FAULTS = ['none', 'throttled', 'unavailable', 'requestTimeout', 'gatewayTimeout', 'badGatewayHtml', 'nonJson', 'slow'] as const;
/**
 * `throttled` 429 (Retry-After per `retryAfter429`); `unavailable` 503 with Retry-After;
 * `requestTimeout` 408; `gatewayTimeout` 504; `badGatewayHtml` 502 with an HTML page; `nonJson`
 * 200 with an HTML body; `slow` answers normally after `slowDelayMs`.
 */
export type ErpFault = (typeof ERP_FAULTS)[number];
export const ERP_RETRY_AFTER_FORMS = ['absent', 'seconds', 'httpDate', 'overCap'] as const;
/** Retry-After of a 429: none (the documented normal case), delta-seconds, an HTTP-date, or seconds over the 5 s cap. */
export type ErpRetryAfterForm = (typeof ERP_RETRY_AFTER_FORMS)[number];

export interface ErpSwitches {
  /** Real set name (case-insensitive) that answers 400 when `Data-Access-Intent: ReadOnly` is sent. Default null. */
  readOnlyIntentRejectedSet: string | null;
  /** Per-token sliding window: requests allowed per window, 0 = off (default). Over it → 429. */
  rateLimitRequests: number;
  /** Length of the sliding window (default 300000, the documented 5 minutes). */
  rateLimitWindowMs: number;
  /** Retry-After form of every 429 (window or fault). Default `absent`. */
  retryAfter429: ErpRetryAfterForm;
  /** Seconds of the `seconds`/`httpDate` forms and of the 503's Retry-After. Default 1. */
  retryAfterSeconds: number;
  /** Injected fault (default `none`). */
  fault: ErpFault;
  /** 0: the fault answers every matching request; N: the next N matching requests, then `fault` returns to `none`. */
  faultCount: number;
  /** Case-insensitive substring of the request path the fault is limited to (null: every upstream request). */
  faultPath: string | null;
  /** Delay of the `slow` fault (default 35000). */
  slowDelayMs: number;
  /** The static token counts as expired (401). Default false. */
  tokenExpired: boolean;
  /** Status for a well-formed but unknown company GUID (code Internal_CompanyNotFound): 404 (default) or 400 (§3 allows both). */
  unknownCompanyStatus: 404 | 400;
  /** Raw query text appended to every `@odata.nextLink` (e.g. `$expand=*&$top=100000&callback=x`): a proxy or upstream that tampers with next links. Default null. */
  nextLinkExtraQuery: string | null;
}

export interface ErpSandboxOptions {
  /** 0 (the default) picks a free port. */
  port?: number;
  /** Defaults to 127.0.0.1. */
  host?: string;
  /** Path prefix the API is served under (default '' — the real base has none), e.g. '/bc'. */
  basePath?: string;
  /** Origin (scheme, host, port) put into `@odata.context`/`@odata.nextLink`, e.g. a proxy in front (default: the sandbox's own). */
  publicUrl?: string;
  /** The static accepted token (default ERP_SANDBOX_TOKEN); null accepts no static token. */
  accessToken?: string | null;
  /** The static unlicensed token (default ERP_SANDBOX_UNLICENSED_TOKEN); null disables it. */
  unlicensedToken?: string | null;
  /** Decides every token that is not a static one (absent: such tokens get 401). */
  verifyToken?: ErpTokenVerifier;
  /** Initial (and reset) switches. */
  switches?: Partial<ErpSwitches>;
}

export interface ErpRecordedRequest {
  readonly method: string;
  /** Path without the query string, as received (percent-encoded). */
  readonly path: string;
  /** Decoded query parameters. */
  readonly query: Readonly<Record<string, string>>;
  readonly headers: IncomingHttpHeaders;
}

export interface ErpWriteAttempt {
  readonly method: string;
  readonly path: string;
  readonly body: unknown;
}

export interface ErpSandboxStats {
  /** Upstream requests received (control requests excluded). */
  requests: number;
  /** Answers by status code. */
  byStatus: Record<string, number>;
  unauthorized: number;
  forbidden: number;
  /** 429 answers (window and fault). */
  throttled: number;
  /** 400 answers for `Data-Access-Intent: ReadOnly` on the switched set. */
  readOnlyIntentRejections: number;
  /** Every request with a method other than GET (answered 405); must stay empty. */
  writeLog: ErpWriteAttempt[];
}

export interface ErpSandbox {
  /** Base URL (no trailing slash), the equivalent of https://api.businesscentral.dynamics.com. */
  readonly url: string;
  /** The base put into absolute links (`publicUrl` option, else `url`). */
  readonly publicUrl: string;
  readonly port: number;
  readonly token: string | null;
  readonly unlicensedToken: string | null;
  readonly switches: Readonly<ErpSwitches>;
  readonly stats: ErpSandboxStats;
  /** The request log, oldest first (at most ERP_REQUEST_LOG_MAX entries). */
  readonly requests: readonly ErpRecordedRequest[];
  setSwitches(partial: Partial<ErpSwitches>): void;
  resetSwitches(): void;
  /** Clears counters, the write log and the request log. */
  resetStats(): void;
  close(): Promise<void>;
}

// ---------------------------------------------------------------------------------------------
// Switches
// ---------------------------------------------------------------------------------------------

const isCount = (v: unknown, max: number): v is number => typeof v === 'number' && Number.isInteger(v) && v >= 0 && v <= max;

const SWITCH_CHECKS: { readonly [K in keyof ErpSwitches]: (value: unknown) => boolean } = {
  readOnlyIntentRejectedSet: (v) => v === null || (typeof v === 'string' && v.length > 0),
  rateLimitRequests: (v) => isCount(v, 1_000_000),
  rateLimitWindowMs: (v) => isCount(v, 3_600_000) && (v as number) > 0,
  retryAfter429: (v) => (ERP_RETRY_AFTER_FORMS as readonly unknown[]).includes(v),
  retryAfterSeconds: (v) => isCount(v, 86_400),
  fault: (v) => (ERP_FAULTS as readonly unknown[]).includes(v),
  faultCount: (v) => isCount(v, 1_000_000),
  faultPath: (v) => v === null || (typeof v === 'string' && v.length > 0),
  slowDelayMs: (v) => isCount(v, 600_000),
  tokenExpired: (v) => typeof v === 'boolean',
  unknownCompanyStatus: (v) => v === 404 || v === 400,
  nextLinkExtraQuery: (v) => v === null || (typeof v === 'string' && v.length > 0),
};

const DEFAULT_SWITCHES: ErpSwitches = {
  readOnlyIntentRejectedSet: null,
  rateLimitRequests: 0,
  rateLimitWindowMs: 300_000,
  retryAfter429: 'absent',
  retryAfterSeconds: 1,
  fault: 'none',
  faultCount: 0,
  faultPath: null,
  slowDelayMs: ERP_DEFAULT_SLOW_DELAY_MS,
  tokenExpired: false,
  unknownCompanyStatus: 404,
  nextLinkExtraQuery: null,
};

// ---------------------------------------------------------------------------------------------
// Responses
// ---------------------------------------------------------------------------------------------

const JSON_TYPE = 'application/json; odata.metadata=minimal; odata.streaming=true; IEEE754Compatible=false; charset=utf-8';
const GUID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;

class HttpError extends Error {
  readonly status: number;
  readonly code: string;
  readonly headers: Record<string, string>;
  constructor(status: number, code: string, message: string, headers: Record<string, string> = {}) {
    super(message);
    this.status = status;
    this.code = code;
    this.headers = headers;
  }
}

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': JSON_TYPE, 'content-length': Buffer.byteLength(text), 'odata-version': '4.0', ...headers });
  res.end(text);
}

function sendError(res: ServerResponse, status: number, code: string, message: string, headers: Record<string, string> = {}): void {
  const correlationId = randomUUID();
  sendJson(res, status, { error: { code, message: `${message}  CorrelationId: ${correlationId}.` } }, { 'request-id': correlationId, ...headers });
}

function sendHtml(res: ServerResponse, status: number, html: string): void {
  res.writeHead(status, { 'content-type': 'text/html; charset=utf-8', 'content-length': Buffer.byteLength(html) });
  res.end(html);
}

/** Query values as OData shows them: `$` and `,` stay readable, everything else percent-encoded. */
function encodeQueryValue(value: string): string {
  return encodeURIComponent(value).replace(/%24/g, '$').replace(/%2C/g, ',');
}

function notFoundSegment(segment: string): HttpError {
  return new HttpError(404, 'BadRequest_ResourceNotFound', `Resource not found for the segment '${segment}'.`);
}

const SEGMENT = /^([A-Za-z][A-Za-z0-9]*)(?:\((.*)\))?$/s;

function parseSegment(segment: string): { name: string; key: string | undefined } {
  const m = SEGMENT.exec(segment);
  if (m === null) throw new HttpError(404, 'BadRequest_NotFound', `No HTTP resource was found that matches the request URI segment '${segment}'.`);
  return { name: m[1]!, key: m[2] };
}

function guidKey(key: string, set: string): string {
  if (!GUID.test(key)) throw new HttpError(400, 'BadRequest', `Bad Request - Error in query syntax: the key '${key}' of '${set}' is not a valid GUID (GUIDs are written unquoted).`);
  return key.toLowerCase();
}

function edmType(t: string): string {
  return { string: 'Edm.String', number: 'Edm.Decimal', boolean: 'Edm.Boolean', date: 'Edm.Date', datetime: 'Edm.DateTimeOffset', guid: 'Edm.Guid' }[t] ?? 'Edm.String';
}

function metadataXml(): string {
  const types: string[] = [];
  const sets: string[] = [];
  for (const set of ERP_SERVICE_DOCUMENT_SETS) {
    const schema = erpSchema(set)!;
    const props = Object.entries(schema.fields)
      .map(([name, t]) => `<Property Name="${name}" Type="${edmType(t)}"${name === schema.key ? ' Nullable="false"' : ''} />`)
      .join('');
    const navs = Object.entries(schema.navigations)
      .map(([name, nav]) => {
        const target = erpSchema(nav.target)!;
        return `<NavigationProperty Name="${name}" Type="${nav.many ? `Collection(Microsoft.NAV.${target.type})` : `Microsoft.NAV.${target.type}`}" />`;
      })
      .join('');
    types.push(`<EntityType Name="${schema.type}"><Key><PropertyRef Name="${schema.key}" /></Key>${props}${navs}</EntityType>`);
    sets.push(`<EntitySet Name="${set}" EntityType="Microsoft.NAV.${schema.type}" />`);
  }
  return (
    '<?xml version="1.0" encoding="utf-8"?>' +
    '<edmx:Edmx Version="4.0" xmlns:edmx="http://docs.oasis-open.org/odata/ns/edmx"><edmx:DataServices>' +
    `<Schema Namespace="Microsoft.NAV" xmlns="http://docs.oasis-open.org/odata/ns/edm">${types.join('')}` +
    `<EntityContainer Name="NAV">${sets.join('')}</EntityContainer></Schema></edmx:DataServices></edmx:Edmx>`
  );
}

const BAD_GATEWAY_PAGE =
  '<!DOCTYPE html>\n<html><head><title>502 - Web server received an invalid response while acting as a gateway or proxy server.</title></head>' +
  '<body><h1>Server Error</h1><h2>502 - Web server received an invalid response while acting as a gateway or proxy server.</h2></body></html>\n';
const NON_JSON_PAGE =
  '<!DOCTYPE html>\n<html><head><title>Sign in to your account</title></head><body><form method="post" action="https://login.microsoftonline.com/">' +
  '<p>Sign in to continue to Dynamics 365 Business Central.</p></form></body></html>\n';

// ---------------------------------------------------------------------------------------------
// The server
// ---------------------------------------------------------------------------------------------

interface ApiScope {
  /** `{publicUrl}/v2.0[/{tenant}]/{env}/api/v2.0` as requested. */
  readonly base: string;
  readonly environment: string;
}

interface ReadRequest {
  readonly req: IncomingMessage;
  readonly res: ServerResponse;
  readonly url: URL;
  /** Decoded query parameters. */
  readonly query: Readonly<Record<string, string>>;
}

/** Starts the ERP sandbox; resolves once it listens. */
export async function startErpSandbox(options: ErpSandboxOptions = {}): Promise<ErpSandbox> {
  const host = options.host ?? '127.0.0.1';
  const basePath = (options.basePath ?? '').replace(/\/+$/, '');
  if (basePath !== '' && !/^\/[\w./-]*$/.test(basePath)) throw new TypeError(`invalid basePath: ${basePath}`);
  const staticToken = options.accessToken === undefined ? ERP_SANDBOX_TOKEN : options.accessToken;
  const unlicensedToken = options.unlicensedToken === undefined ? ERP_SANDBOX_UNLICENSED_TOKEN : options.unlicensedToken;
  const initialError = switchError(options.switches ?? {}, SWITCH_CHECKS);
  if (initialError !== undefined) throw new TypeError(`erp sandbox: ${initialError}`);
  const initialSwitches: ErpSwitches = { ...DEFAULT_SWITCHES, ...options.switches };
  let switches: ErpSwitches = { ...initialSwitches };
  const skipTokenKey = randomBytes(32);
  const stats: ErpSandboxStats = { requests: 0, byStatus: {}, unauthorized: 0, forbidden: 0, throttled: 0, readOnlyIntentRejections: 0, writeLog: [] };
  const requestLog: ErpRecordedRequest[] = [];
  const windows = new Map<string, number[]>();
  const pendingDelays = new PendingDelays();
  const data = erpDataset();
  let publicUrl = '';

  function setSwitches(partial: Partial<ErpSwitches>): void {
    const error = switchError(partial, SWITCH_CHECKS);
    if (error !== undefined) throw new TypeError(`erp sandbox: ${error}`);
    switches = { ...switches, ...partial };
  }

  function resetStats(): void {
    stats.requests = 0;
    stats.byStatus = {};
    stats.unauthorized = 0;
    stats.forbidden = 0;
    stats.throttled = 0;
    stats.readOnlyIntentRejections = 0;
    stats.writeLog = [];
    requestLog.length = 0;
    windows.clear();
  }

  function retryAfter429(): Record<string, string> {
    switch (switches.retryAfter429) {
      case 'absent':
        return {};
      case 'seconds':
        return { 'retry-after': String(switches.retryAfterSeconds) };
      case 'httpDate':
        return { 'retry-after': new Date(Date.now() + switches.retryAfterSeconds * 1000).toUTCString() };
      case 'overCap':
        return { 'retry-after': String(ERP_RETRY_AFTER_OVER_CAP_SECONDS) };
    }
  }

  function throttle(res: ServerResponse): void {
    stats.throttled++;
    sendError(res, 429, 'Application_TooManyRequests', 'The request was throttled: too many requests in the sliding window. Try again later.', retryAfter429());
  }

  /** Answers the fault when one applies; 'continue' otherwise (also after a `slow` delay). */
  async function injectFault(res: ServerResponse, path: string): Promise<'answered' | 'continue' | 'gone'> {
    const fault = switches.fault;
    if (fault === 'none') return 'continue';
    if (switches.faultPath !== null && !path.toLowerCase().includes(switches.faultPath.toLowerCase())) return 'continue';
    if (switches.faultCount > 0) switches = { ...switches, faultCount: switches.faultCount - 1, ...(switches.faultCount === 1 ? { fault: 'none' as const } : {}) };
    switch (fault) {
      case 'slow':
        return (await pendingDelays.delay(switches.slowDelayMs, res)) ? 'continue' : 'gone';
      case 'throttled':
        throttle(res);
        return 'answered';
      case 'unavailable':
        sendError(res, 503, 'ServiceUnavailable', 'The service is temporarily unavailable.', { 'retry-after': String(switches.retryAfterSeconds) });
        return 'answered';
      case 'requestTimeout':
        sendError(res, 408, 'RequestTimeout', 'The operation took longer than the allowed 8 minutes.');
        return 'answered';
      case 'gatewayTimeout':
        sendError(res, 504, 'GatewayTimeout', 'The request took longer than the allowed 10 minutes.');
        return 'answered';
      case 'badGatewayHtml':
        sendHtml(res, 502, BAD_GATEWAY_PAGE);
        return 'answered';
      case 'nonJson':
        sendHtml(res, 200, NON_JSON_PAGE);
        return 'answered';
    }
  }

  async function authenticate(req: IncomingMessage): Promise<string> {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '');
    const unauthorized = (why: string): HttpError => {
      stats.unauthorized++;
      return new HttpError(401, 'Authentication_InvalidCredentials', `The server has rejected the client credentials (${why}).`, {
        'www-authenticate': `Bearer authorization_uri="https://login.microsoftonline.com/${ERP_TENANT_ID}/oauth2/authorize", error="invalid_token"`,
      });
    };
    const forbidden = (): HttpError => {
      stats.forbidden++;
      return new HttpError(403, 'Authorization_InsufficientPermissions', 'The user does not have a Dynamics 365 Business Central licence or the permission to access this resource.');
    };
    if (match === null) throw unauthorized('no bearer token');
    const token = match[1]!;
    if (staticToken !== null && token === staticToken) {
      if (switches.tokenExpired) throw unauthorized('the token has expired');
      return token;
    }
    if (unlicensedToken !== null && token === unlicensedToken) throw forbidden();
    if (options.verifyToken === undefined) throw unauthorized('invalid token');
    let verdict: ErpTokenVerdict;
    try {
      verdict = await options.verifyToken(token);
    } catch {
      throw unauthorized('invalid token');
    }
    if (!verdict.valid) throw unauthorized('invalid token');
    if (verdict.expired === true) throw unauthorized('the token has expired');
    if (verdict.licensed === false) throw forbidden();
    return token;
  }

  /** Counts the request in the token's sliding window; throws 429 when the window is full. */
  function countInWindow(res: ServerResponse, token: string): boolean {
    if (switches.rateLimitRequests === 0) return true;
    const now = Date.now();
    const recent = (windows.get(token) ?? []).filter((t) => now - t < switches.rateLimitWindowMs);
    if (recent.length >= switches.rateLimitRequests) {
      windows.set(token, recent);
      throttle(res);
      return false;
    }
    recent.push(now);
    windows.set(token, recent);
    return true;
  }

  // Skip tokens: an opaque, tagged wrap of the next offset and the key of the last row sent.

  function mintSkipToken(offset: number, lastKey: unknown): string {
    const body = Buffer.from(JSON.stringify({ o: offset, k: lastKey })).toString('base64url');
    const tag = createHmac('sha256', skipTokenKey).update(body).digest('base64url').slice(0, 16);
    return `${body}.${tag}`;
  }

  function readSkipToken(token: string): number {
    const [body, tag, extra] = token.split('.');
    const invalid = new HttpError(400, 'BadRequest', 'The $skiptoken is not valid.');
    if (body === undefined || tag === undefined || extra !== undefined) throw invalid;
    if (createHmac('sha256', skipTokenKey).update(body).digest('base64url').slice(0, 16) !== tag) throw invalid;
    const parsed = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as { o?: unknown };
    if (typeof parsed.o !== 'number' || !Number.isInteger(parsed.o) || parsed.o < 0) throw invalid;
    return parsed.o;
  }

  function maxPageSize(req: IncomingMessage): number | undefined {
    const prefer = req.headers.prefer;
    if (prefer === undefined) return undefined;
    for (const part of (Array.isArray(prefer) ? prefer.join(',') : prefer).split(',')) {
      const m = /^\s*odata\.maxpagesize\s*=\s*"?(\d+)"?\s*$/i.exec(part);
      if (m !== null && Number(m[1]) > 0) return Math.min(Number(m[1]), ERP_MAX_PAGE_SIZE);
    }
    return undefined;
  }

  function parsedOptions(q: ReadRequest, schema: ErpEntitySchema): QueryOptions {
    try {
      return parseOptions(q.query, schema);
    } catch (error) {
      if (error instanceof ODataError) throw new HttpError(error.status, error.code, error.message);
      throw error;
    }
  }

  function sendCollection(q: ReadRequest, schema: ErpEntitySchema, rows: readonly ErpStoredRow[], context: string, source: (set: string) => readonly ErpStoredRow[]): void {
    const options = parsedOptions(q, schema);
    const skipToken = q.query.$skiptoken;
    let offset = skipToken !== undefined ? readSkipToken(skipToken) : (options.skip ?? 0);
    if (skipToken !== undefined && options.skip !== undefined) offset = Math.max(offset, options.skip);
    const all = selectRows(rows, options);
    const preferred = maxPageSize(q.req);
    const headers: Record<string, string> = preferred !== undefined ? { 'preference-applied': `odata.maxpagesize=${preferred}` } : {};
    let page: ErpStoredRow[];
    let nextLink: string | undefined;
    if (options.top !== undefined) {
      page = all.slice(offset, offset + Math.min(options.top, ERP_MAX_PAGE_SIZE));
    } else {
      const size = preferred ?? ERP_MAX_PAGE_SIZE;
      page = all.slice(offset, offset + size);
      if (offset + size < all.length) {
        const last = page[page.length - 1]!;
        const params = Object.entries(q.query).filter(([name]) => name !== '$skiptoken' && name !== '$skip');
        params.push(['$skiptoken', mintSkipToken(offset + size, last.fields[schema.key])]);
        nextLink = `${publicUrl}${q.url.pathname}?${params.map(([k, v]) => `${encodeQueryValue(k)}=${encodeQueryValue(v)}`).join('&')}`;
        if (switches.nextLinkExtraQuery !== null) nextLink += `&${switches.nextLinkExtraQuery}`;
      }
    }
    const body: Record<string, unknown> = { '@odata.context': options.select === undefined ? context : `${context}(${options.select.join(',')})` };
    if (options.count === true) body['@odata.count'] = all.length;
    body.value = page.map((row) => shapeRow(row, schema, options, source));
    if (nextLink !== undefined) body['@odata.nextLink'] = nextLink;
    sendJson(q.res, 200, body, headers);
  }

  function sendEntity(q: ReadRequest, schema: ErpEntitySchema, row: ErpStoredRow, context: string, source: (set: string) => readonly ErpStoredRow[]): void {
    const options = parsedOptions(q, schema);
    const body = {
      '@odata.context': `${context}/$entity`,
      ...shapeRow(row, schema, { ...(options.select ? { select: options.select } : {}), ...(options.expand ? { expand: options.expand } : {}) }, source),
    };
    sendJson(q.res, 200, body, { etag: row.etag });
  }

  function sendCount(q: ReadRequest, schema: ErpEntitySchema, rows: readonly ErpStoredRow[]): void {
    const options = parsedOptions(q, schema);
    sendText(q.res, 200, String(selectRows(rows, options).length), { 'odata-version': '4.0' });
  }

  function companyOf(scope: ApiScope, key: string): ErpCompany {
    const id = guidKey(key, 'companies');
    const company = data.companies.find((c) => c.environment === scope.environment && c.row.id === id);
    if (company === undefined)
      throw new HttpError(switches.unknownCompanyStatus, 'Internal_CompanyNotFound', `The company '${id}' does not exist in environment '${scope.environment}' or you do not have access to it.`);
    return company;
  }

  function findByKey(rows: readonly ErpStoredRow[], schema: ErpEntitySchema, key: string): ErpStoredRow {
    const row = rows.find((r) => String(r.fields[schema.key]).toLowerCase() === key);
    if (row === undefined) throw new HttpError(404, 'Internal_RecordNotFound', `The ${schema.type} does not exist. Identification fields and values: ${schema.key}='${key}'.`);
    return row;
  }

  function serveApi(q: ReadRequest, scope: ApiScope, rest: readonly string[]): void {
    if (rest.length === 0) {
      sendJson(q.res, 200, { '@odata.context': `${scope.base}/$metadata`, value: ERP_SERVICE_DOCUMENT_SETS.map((name) => ({ name, kind: 'EntitySet', url: name })) });
      return;
    }
    if (rest.length === 1 && rest[0] === '$metadata') {
      const xml = metadataXml();
      q.res.writeHead(200, { 'content-type': 'application/xml; charset=utf-8', 'content-length': Buffer.byteLength(xml), 'odata-version': '4.0' });
      q.res.end(xml);
      return;
    }
    const first = parseSegment(rest[0]!);
    const context = `${scope.base}/$metadata#`;
    if (first.name === 'subscriptions') {
      const schema = erpSchema('subscriptions')!;
      const rows = data.subscriptions.get(scope.environment) ?? [];
      const source = (set: string) => (set === 'subscriptions' ? rows : []);
      if (first.key === undefined && rest.length === 1) {
        sendCollection(q, schema, rows, `${context}subscriptions`, source);
        return;
      }
      if (first.key !== undefined && rest.length === 1) {
        const quoted = /^'((?:[^']|'')*)'$/.exec(first.key);
        if (quoted === null) {
          if (GUID.test(first.key)) throw new HttpError(404, 'Internal_RecordNotFound', `The subscription does not exist. Identification fields and values: subscriptionId='${first.key}'.`);
          throw new HttpError(400, 'BadRequest', `Bad Request - Error in query syntax: the key '${first.key}' of 'subscriptions' is a string and must be quoted.`);
        }
        const wanted = quoted[1]!.replace(/''/g, "'");
        const row = rows.find((r) => r.fields.subscriptionId === wanted);
        if (row === undefined) throw new HttpError(404, 'Internal_RecordNotFound', `The subscription does not exist. Identification fields and values: subscriptionId='${wanted}'.`);
        sendEntity(q, schema, row, `${context}subscriptions`, source);
        return;
      }
      throw notFoundSegment(rest[1] ?? rest[0]!);
    }
    if (first.name !== 'companies') {
      if (ERP_SERVICE_DOCUMENT_SETS.includes(first.name))
        throw new HttpError(400, 'Internal_CompanyNotFound', `The entity set '${first.name}' is company-scoped: the request URL needs a companies({id}) segment.`);
      throw notFoundSegment(rest[0]!);
    }
    const companies = erpSchema('companies')!;
    const companyRows = data.companies.filter((c) => c.environment === scope.environment).map((c) => ({ fields: c.row, etag: erpEtag(c.row) }));
    if (first.key === undefined) {
      if (rest.length === 1) {
        sendCollection(q, companies, companyRows, `${context}companies`, () => []);
        return;
      }
      throw notFoundSegment(rest[1]!);
    }
    const company = companyOf(scope, first.key);
    if (rest.length === 1) {
      sendEntity(q, companies, companyRows.find((r) => r.fields.id === company.row.id)!, `${context}companies`, () => []);
      return;
    }
    const second = parseSegment(rest[1]!);
    const schema = erpSchema(second.name);
    if (schema === undefined || ERP_ENVIRONMENT_SETS.has(second.name)) throw notFoundSegment(rest[1]!);
    if (switches.readOnlyIntentRejectedSet !== null && switches.readOnlyIntentRejectedSet.toLowerCase() === second.name.toLowerCase()) {
      const intent = q.req.headers['data-access-intent'];
      if (typeof intent === 'string' && intent.trim().toLowerCase() === 'readonly') {
        stats.readOnlyIntentRejections++;
        throw new HttpError(400, 'BadRequest', `The Data-Access-Intent header value 'ReadOnly' is not supported for the entity set '${second.name}'.`);
      }
    }
    const source = (set: string): readonly ErpStoredRow[] => company.sets.get(set) ?? [];
    const rows = source(second.name);
    const setContext = `${context}companies(${company.row.id})/${second.name}`;
    if (second.key === undefined) {
      if (rest.length === 2) {
        sendCollection(q, schema, rows, setContext, source);
        return;
      }
      if (rest.length === 3 && rest[2] === '$count') {
        sendCount(q, schema, rows);
        return;
      }
      throw notFoundSegment(rest[2]!);
    }
    const row = findByKey(rows, schema, guidKey(second.key, second.name));
    if (rest.length === 2) {
      sendEntity(q, schema, row, setContext, source);
      return;
    }
    const navName = rest[2]!;
    const nav = schema.navigations[navName];
    if (nav === undefined || rest.length > 3) throw notFoundSegment(navName);
    const target = erpSchema(nav.target)!;
    const parentValue = row.fields[nav.parentField];
    const related = source(nav.target).filter((child) => child.fields[nav.childField] === parentValue);
    const navContext = `${setContext}(${String(row.fields[schema.key])})/${navName}`;
    if (nav.many) {
      sendCollection(q, target, related, navContext, source);
      return;
    }
    if (related[0] === undefined) throw new HttpError(404, 'Internal_RecordNotFound', `The ${target.type} does not exist.`);
    sendEntity(q, target, related[0], navContext, source);
  }

  async function handleUpstream(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    const method = req.method ?? 'GET';
    const { text } = await readBody(req);
    const query: Record<string, string> = {};
    for (const [k, v] of url.searchParams) query[k] = v;
    stats.requests++;
    requestLog.push({ method, path: url.pathname, query, headers: { ...req.headers } });
    if (requestLog.length > ERP_REQUEST_LOG_MAX) requestLog.splice(0, requestLog.length - ERP_REQUEST_LOG_MAX);
    res.once('finish', () => {
      stats.byStatus[res.statusCode] = (stats.byStatus[res.statusCode] ?? 0) + 1;
    });

    if (method !== 'GET') {
      stats.writeLog.push({ method, path: `${url.pathname}${url.search}`, body: parseJsonLoose(text) });
      sendError(res, 405, 'BadRequest_MethodNotAllowed', `The HTTP method '${method}' is not allowed: this sandbox is read-only.`, { allow: 'GET' });
      return;
    }
    const fault = await injectFault(res, url.pathname);
    if (fault !== 'continue') return;

    try {
      if (basePath !== '' && url.pathname !== basePath && !url.pathname.startsWith(`${basePath}/`))
        throw new HttpError(404, 'BadRequest_NotFound', 'No HTTP resource was found that matches the request URI.');
      const raw = url.pathname
        .slice(basePath.length)
        .split('/')
        .filter((s) => s !== '');
      const segments = raw.map((s) => {
        try {
          return decodeURIComponent(s);
        } catch {
          throw new HttpError(400, 'BadRequest', 'The request URI is malformed.');
        }
      });
      const token = await authenticate(req);
      if (!countInWindow(res, token)) return;
      const q: ReadRequest = { req, res, url, query };

      if (segments.length === 2 && segments[0] === 'environments' && segments[1] === 'v1.2') {
        sendJson(res, 200, erpEnvironmentsBody());
        return;
      }
      if (segments[0] === 'admin') {
        stats.forbidden++;
        throw new HttpError(403, 'Authorization_InsufficientPermissions', 'The admin center API requires the Dynamics 365 administrator or global administrator role.');
      }
      if (segments[0] === 'v2.0') {
        const apiAt = segments[2] === 'api' ? 2 : segments[3] === 'api' ? 3 : -1;
        if (apiAt < 0 || segments[apiAt + 1] !== 'v2.0') throw new HttpError(404, 'BadRequest_NotFound', 'No HTTP resource was found that matches the request URI.');
        const tenant = apiAt === 3 ? segments[1]! : undefined;
        const environment = segments[apiAt - 1]!;
        if (tenant !== undefined && tenant.toLowerCase() !== ERP_TENANT_ID && tenant.toLowerCase() !== ERP_TENANT_DOMAIN) {
          stats.unauthorized++;
          throw new HttpError(401, 'Authentication_InvalidCredentials', `The token is not valid for the tenant '${tenant}'.`);
        }
        if (!(ERP_ENVIRONMENTS as readonly string[]).includes(environment)) throw new HttpError(404, 'BadRequest_NotFound', `The environment '${environment}' does not exist.`);
        const base = `${publicUrl}${basePath}/${raw.slice(0, apiAt + 2).join('/')}`;
        serveApi(q, { base, environment }, segments.slice(apiAt + 2));
        return;
      }
      throw new HttpError(404, 'BadRequest_NotFound', 'No HTTP resource was found that matches the request URI.');
    } catch (error) {
      if (error instanceof HttpError) sendError(res, error.status, error.code, error.message, error.headers);
      else if (error instanceof ODataError) sendError(res, error.status, error.code, error.message);
      else throw error;
    }
  }

  function handleControl(req: IncomingMessage, res: ServerResponse, path: string, text: string): void {
    const method = req.method ?? 'GET';
    if (path === '/__sandbox/switches' && method === 'GET') {
      sendJson(res, 200, switches);
      return;
    }
    if (path === '/__sandbox/switches' && method === 'POST') {
      const body = parseJsonLoose(text);
      const error = switchError(body, SWITCH_CHECKS);
      if (error !== undefined) {
        sendJson(res, 400, { error, switches: Object.keys(SWITCH_CHECKS) });
        return;
      }
      setSwitches(body as Partial<ErpSwitches>);
      sendJson(res, 200, switches);
      return;
    }
    if (path === '/__sandbox/stats' && method === 'GET') {
      sendJson(res, 200, stats);
      return;
    }
    if (path === '/__sandbox/requests' && method === 'GET') {
      sendJson(res, 200, requestLog);
      return;
    }
    if (path === '/__sandbox/reset' && method === 'POST') {
      resetStats();
      switches = { ...initialSwitches };
      sendJson(res, 200, { switches, stats });
      return;
    }
    sendJson(res, 404, {
      error: `no sandbox control at ${method} ${path}`,
      controls: ['GET /__sandbox/switches', 'POST /__sandbox/switches', 'GET /__sandbox/stats', 'GET /__sandbox/requests', 'POST /__sandbox/reset'],
    });
  }

  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://sandbox.invalid');
    const work = url.pathname.startsWith('/__sandbox/') ? readBody(req).then(({ text }) => handleControl(req, res, url.pathname, text)) : handleUpstream(req, res, url);
    work.catch(() => {
      if (!res.headersSent) sendText(res, 500, 'sandbox error');
      else res.destroy();
    });
  });

  const listening = await listen(server, options.port ?? 0, host);
  const { origin } = listening;
  const url = `${origin}${basePath}`;
  // Absolute links are built as `${publicUrl}${path as received}`; the path already holds basePath.
  publicUrl = options.publicUrl === undefined ? origin : new URL(options.publicUrl).origin;
  return {
    url,
    publicUrl: `${publicUrl}${basePath}`,
    port: listening.port,
    token: staticToken,
    unlicensedToken,
    get switches() {
      return { ...switches };
    },
    stats,
    requests: requestLog,
    setSwitches,
    resetSwitches() {
      switches = { ...initialSwitches };
    },
    resetStats,
    close: closeOnce(server, pendingDelays),
  };
}

if (import.meta.main) {
  const port = Number(process.env.ERP_SANDBOX_PORT ?? 4105);
  const sandbox = await startErpSandbox({ port });
  const { ERP_DEMO_COMPANY_ID } = await import('./data.ts');
  const auth = `-H 'authorization: Bearer ${sandbox.token}'`;
  process.stdout.write(`${sandbox.url}\n`);
  process.stdout.write(
    `ERP (Business Central API v2.0) sandbox listening. Static bearer token: ${sandbox.token}\n` +
      `Try:\n` +
      `  curl -s ${auth} ${sandbox.url}/environments/v1.2\n` +
      `  curl -s ${auth} ${sandbox.url}/v2.0/Production/api/v2.0/companies\n` +
      `  curl -s ${auth} -H 'prefer: odata.maxpagesize=5' "${sandbox.url}/v2.0/Production/api/v2.0/companies(${ERP_DEMO_COMPANY_ID})/customers?\\$select=number,displayName"\n` +
      `  curl -s -X POST -H 'content-type: application/json' -d '{"fault":"throttled","faultCount":1}' ${sandbox.url}/__sandbox/switches\n`,
  );
  const stop = (): void => {
    sandbox.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}
