// Sandbox fake of the case-management upstream (Ordrestyring.dk GraphQL API), reached over HTTP
// exactly like the real one. See ../shared/upstreams/cases.md (§2 wire contract, §4 checklist).
//
//   POST {url}   with url = http://127.0.0.1:<port>/graphql
//                body { query, variables?, operationName? }, header Authorization: Bearer <token>
//
// Every request runs through graphql-js against a real executable schema (./schema.ts) over the
// seeded data of ./data.ts; each token sees one company only. Every reply to /graphql carries
// X-RateLimit-Limit / X-RateLimit-Remaining (per-token sliding window of one minute).
//
// Sandbox-only controls (no auth; they do not count as requests):
//   GET  /__sandbox/switches        current switches
//   POST /__sandbox/switches        { ...partial switches } → the switches after the change
//   GET  /__sandbox/stats           counters, last request, recent bodies, mutation log
//   POST /__sandbox/reset           default switches, empty stats, windows and mutation log
//
// Run as a script: `node sandbox/cases/server.ts` listens on 127.0.0.1:4102
// (CASES_SANDBOX_PORT overrides the port; 0 picks a free one) and prints the URL and demo token.

import { createServer } from 'node:http';
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import type { GraphQLError, GraphQLFormattedError } from 'graphql';
import { CASES_DEMO_TOKEN, CASES_OTHER_TOKEN, casesDataset } from './data.ts';
import { CASES_SCHEMA_MODES, DEFAULT_SCHEMA_SHAPES, executeCasesQuery } from './schema.ts';
import type { CasesSchemaMode, CasesSchemaShapes } from './schema.ts';
import { checkedSwitches, closeOnce, closeOnSignals, listen, MAX_BODY_BYTES, PendingDelays, parseJsonLoose, readBody, type SandboxControls, serveControls, switchError } from '../http-kit.ts';

/** Suggested `delayMs` for a timeout test: longer than the gateway's 20 s upstream timeout. */
export const CASES_SLOW_DELAY_MS = 25_000;
export const DEFAULT_RATE_LIMIT_PER_MINUTE = 60;
export const THROTTLE_BODY = { errors: [{ message: 'Too Many Attempts.', type: 'ThrottleRequestsException' }] } as const;
export const UNAUTHENTICATED_MESSAGE = 'Unauthenticated.';

const ENDPOINT_PATH = '/graphql';
const REQUEST_LOG_SIZE = 200;
const WINDOW_MS = 60_000;

export interface CasesSwitches {
  /** Schema served: "extended" (default), "public" or "upper-enum". */
  schemaMode: CasesSchemaMode;
  /** `status` and `caseType`: objects `{ text }` (default, "object") or plain strings ("scalar"). */
  caseTexts: CasesSchemaShapes['caseTexts'];
  /** `orderBy` arguments: `[OrderByInput]` (default, "list") or one `OrderByInput` ("object"). */
  orderByShape: CasesSchemaShapes['orderBy'];
  /** `HoursFilterInput.case`: `Int` (default, "int") or `HourCaseFilterInput { id, includeSubcases }` ("object"). */
  hoursCaseFilter: CasesSchemaShapes['hoursCaseFilter'];
  /** false adds NoSchemaIntrospectionCustomRule to validation. Default true. */
  introspection: boolean;
  /** Reply to a missing/unknown/revoked token: HTTP 401 (default), HTTP 403, or HTTP 200 with an error. */
  unauthenticated: 'http401' | 'http403' | 'http200';
  /** Known tokens treated as unknown (a revoked key). */
  revokedTokens: string[];
  /** Largest accepted `pagination.limit` (default 200). */
  limitCap: number;
  /** Over the cap: "error" (default) or "clamp". */
  overCap: 'error' | 'clamp';
  /** `between.to`: "inclusive" (default) or "exclusive". */
  betweenTo: 'inclusive' | 'exclusive';
  /** Validation errors under `extensions.validation` (default) or the legacy top-level `validation` + `type`. */
  validationLayout: 'extensions' | 'legacy';
  /** Requests per token per sliding minute (default 60, or the start option). */
  rateLimitPerMinute: number;
  /** Throttle the next N /graphql requests regardless of the window (counts down). */
  throttleNext: number;
  /** A throttled request gets HTTP 429 (default) or HTTP 200 with the ThrottleRequestsException body. */
  throttleMode: 'http429' | 'http200';
  /** Retry-After on throttled replies: "auto" (seconds until the window frees; 1 for forced), "none", or fixed seconds. */
  retryAfter: 'auto' | 'none' | number;
  /** `Type.field` failing with an SQLSTATE[42000] error beside partial data, e.g. "Query.salesInvoices"; null = off. */
  sqlErrorField: string | null;
  /** Delay before every /graphql reply, in ms (0 = none). */
  delayMs: number;
  /** Answer /graphql with an HTML 500 page. */
  html500: boolean;
  /**
   * Fail the next `count` /graphql requests with HTTP `status` (an HTML error page), then serve
   * normally again (counts down): a transient backend fault. Default `{ count: 0, status: 500 }`.
   */
  failNext: { count: number; status: number };
}

export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  /** Parsed JSON when the body was JSON, otherwise the raw text (undefined when empty). */
  body: unknown;
}

export interface CasesSandboxStats {
  /** /graphql requests received (control requests excluded). */
  requests: number;
  /** Requests answered as throttled. */
  throttled: number;
  /** Requests answered as unauthenticated. */
  unauthenticated: number;
  lastRequest: RecordedRequest | null;
  /** Bodies of the last 200 /graphql requests, oldest first. */
  requestBodies: unknown[];
}

export interface CasesSandboxOptions {
  /** 0 (the default) picks a free port. */
  port?: number;
  /** Defaults to 127.0.0.1. */
  host?: string;
  schemaMode?: CasesSchemaMode;
  /** Schema shapes served (default DEFAULT_SCHEMA_SHAPES); switches `caseTexts`, `orderByShape`, `hoursCaseFilter`. */
  shapes?: Partial<CasesSchemaShapes>;
  /** Size of the per-token window (requests per minute); default 60. */
  rateLimitPerMinute?: number;
}

export interface CasesSandbox {
  /** Full endpoint URL, ending in /graphql. */
  readonly url: string;
  readonly port: number;
  readonly tokens: { readonly demo: string; readonly other: string };
  /** A copy of the current switches. */
  readonly switches: Readonly<CasesSwitches>;
  /** Live counters (the same object is updated in place). */
  readonly stats: CasesSandboxStats;
  /** One JSON line per executed mutation field; stays empty when the client is read-only. */
  readonly mutationLog: string[];
  setSwitches(partial: Partial<CasesSwitches>): Readonly<CasesSwitches>;
  /** Restores the default switches (keeps stats). */
  resetSwitches(): void;
  /** Clears stats, the mutation log and the rate-limit windows. */
  resetStats(): void;
  close(): Promise<void>;
}

const HTML_500 = `<!DOCTYPE html>
<html lang="en">
<head><meta charset="utf-8"><title>Server Error</title></head>
<body>
<div class="flex-center position-ref full-height"><div class="code">500</div><div class="message">Server Error</div></div>
</body>
</html>
`;

function defaultSwitches(options: CasesSandboxOptions): CasesSwitches {
  return {
    schemaMode: options.schemaMode ?? 'extended',
    caseTexts: options.shapes?.caseTexts ?? DEFAULT_SCHEMA_SHAPES.caseTexts,
    orderByShape: options.shapes?.orderBy ?? DEFAULT_SCHEMA_SHAPES.orderBy,
    hoursCaseFilter: options.shapes?.hoursCaseFilter ?? DEFAULT_SCHEMA_SHAPES.hoursCaseFilter,
    introspection: true,
    unauthenticated: 'http401',
    revokedTokens: [],
    limitCap: 200,
    overCap: 'error',
    betweenTo: 'inclusive',
    validationLayout: 'extensions',
    rateLimitPerMinute: options.rateLimitPerMinute ?? DEFAULT_RATE_LIMIT_PER_MINUTE,
    throttleNext: 0,
    throttleMode: 'http429',
    retryAfter: 'auto',
    sqlErrorField: null,
    delayMs: 0,
    html500: false,
    failNext: { count: 0, status: 500 },
  };
}

const oneOf =
  <T extends string>(...values: readonly T[]) =>
  (v: unknown): boolean =>
    typeof v === 'string' && (values as readonly string[]).includes(v);
const isInt =
  (min: number, max: number) =>
  (v: unknown): boolean =>
    Number.isSafeInteger(v) && (v as number) >= min && (v as number) <= max;

const SWITCH_CHECKS: { [K in keyof CasesSwitches]: (value: unknown) => boolean } = {
  schemaMode: oneOf(...CASES_SCHEMA_MODES),
  caseTexts: oneOf('object', 'scalar'),
  orderByShape: oneOf('list', 'object'),
  hoursCaseFilter: oneOf('int', 'object'),
  introspection: (v) => typeof v === 'boolean',
  unauthenticated: oneOf('http401', 'http403', 'http200'),
  revokedTokens: (v) => Array.isArray(v) && v.every((t) => typeof t === 'string'),
  limitCap: isInt(1, 100_000),
  overCap: oneOf('error', 'clamp'),
  betweenTo: oneOf('inclusive', 'exclusive'),
  validationLayout: oneOf('extensions', 'legacy'),
  rateLimitPerMinute: isInt(1, 100_000_000),
  throttleNext: isInt(0, 1_000_000),
  throttleMode: oneOf('http429', 'http200'),
  retryAfter: (v) => v === 'auto' || v === 'none' || isInt(0, 86_400)(v),
  sqlErrorField: (v) => v === null || (typeof v === 'string' && /^[A-Za-z_]\w*\.[A-Za-z_]\w*$/.test(v)),
  delayMs: isInt(0, 600_000),
  html500: (v) => typeof v === 'boolean',
  failNext: (v) => isPlainObject(v) && Object.keys(v).every((k) => k === 'count' || k === 'status') && isInt(0, 1_000_000)(v.count) && isInt(400, 599)(v.status),
};

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { ...headers, 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

function bearerToken(header: string | undefined): string | null {
  if (header === undefined) return null;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match === null ? null : match[1]!;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** graphql-js errors as JSON, moved to the legacy rebing layout when asked. */
function formatErrors(errors: ReadonlyArray<GraphQLError>, layout: CasesSwitches['validationLayout']): unknown[] {
  return errors.map((error) => {
    const json: GraphQLFormattedError = error.toJSON();
    const validation = json.extensions?.validation;
    if (layout !== 'legacy' || validation === undefined) return json;
    const { extensions, ...rest } = json;
    const { validation: _moved, category: _category, ...otherExtensions } = extensions ?? {};
    return { ...rest, ...(Object.keys(otherExtensions).length > 0 ? { extensions: otherExtensions } : {}), type: 'ValidationError', validation };
  });
}

/** Starts the case-management sandbox on 127.0.0.1 (or `host`); resolves once it listens. */
export async function startCasesSandbox(options: CasesSandboxOptions = {}): Promise<CasesSandbox> {
  const initial = defaultSwitches(options);
  const problem = switchError(
    { schemaMode: initial.schemaMode, caseTexts: initial.caseTexts, orderByShape: initial.orderByShape, hoursCaseFilter: initial.hoursCaseFilter, rateLimitPerMinute: initial.rateLimitPerMinute },
    SWITCH_CHECKS,
  );
  if (problem !== undefined) throw new TypeError(`startCasesSandbox: ${problem}`);
  const host = options.host ?? '127.0.0.1';
  let switches: CasesSwitches = { ...initial, revokedTokens: [] };
  const stats: CasesSandboxStats = { requests: 0, throttled: 0, unauthenticated: 0, lastRequest: null, requestBodies: [] };
  const mutationLog: string[] = [];
  const windows = new Map<string, number[]>();
  const delays = new PendingDelays();

  function setSwitches(partial: Partial<CasesSwitches>): Readonly<CasesSwitches> {
    const issue = switchError(partial, SWITCH_CHECKS);
    if (issue !== undefined) throw new TypeError(issue);
    switches = { ...switches, ...partial, revokedTokens: [...(partial.revokedTokens ?? switches.revokedTokens)], failNext: { ...(partial.failNext ?? switches.failNext) } };
    return { ...switches };
  }

  function resetStats(): void {
    stats.requests = 0;
    stats.throttled = 0;
    stats.unauthenticated = 0;
    stats.lastRequest = null;
    stats.requestBodies.length = 0;
    mutationLog.length = 0;
    windows.clear();
  }

  /** Counts the request in its window; returns whether it is throttled and the header values. */
  function rateLimit(key: string): { throttled: boolean; remaining: number; retryAfter: number } {
    const now = Date.now();
    const limit = switches.rateLimitPerMinute;
    const hits = (windows.get(key) ?? []).filter((t) => t > now - WINDOW_MS);
    windows.set(key, hits);
    if (switches.throttleNext > 0) {
      switches.throttleNext--;
      return { throttled: true, remaining: 0, retryAfter: 1 };
    }
    if (hits.length >= limit) {
      const oldest = hits[hits.length - limit]!;
      return { throttled: true, remaining: 0, retryAfter: Math.max(1, Math.ceil((oldest + WINDOW_MS - now) / 1000)) };
    }
    hits.push(now);
    return { throttled: false, remaining: limit - hits.length, retryAfter: 0 };
  }

  /** The `/__sandbox/` controls: no request log (`stats` carries the recent bodies); a reset answers the switches. */
  const controls: SandboxControls = {
    switches: () => switches,
    ...checkedSwitches(SWITCH_CHECKS, setSwitches),
    stats: () => ({ ...stats, mutationLog }),
    reset: () => {
      switches = defaultSwitches(options);
      resetStats();
      return switches;
    },
  };

  async function handleGraphql(req: IncomingMessage, res: ServerResponse, path: string): Promise<void> {
    const method = req.method ?? 'GET';
    const { text, tooLarge } = await readBody(req);
    const recorded = parseJsonLoose(text);
    stats.lastRequest = { method, path: req.url ?? path, headers: { ...req.headers }, body: recorded };
    stats.requestBodies.push(recorded);
    if (stats.requestBodies.length > REQUEST_LOG_SIZE) stats.requestBodies.splice(0, stats.requestBodies.length - REQUEST_LOG_SIZE);

    const token = bearerToken(req.headers.authorization);
    const limit = rateLimit(token === null ? `ip:${req.socket.remoteAddress ?? ''}` : `token:${token}`);
    const headers: Record<string, string> = {
      'x-ratelimit-limit': String(switches.rateLimitPerMinute),
      'x-ratelimit-remaining': String(limit.remaining),
    };

    if (switches.delayMs > 0 && !(await delays.delay(switches.delayMs, res))) return;

    if (switches.failNext.count > 0) {
      switches.failNext = { ...switches.failNext, count: switches.failNext.count - 1 };
      const page = HTML_500.replaceAll('500', String(switches.failNext.status));
      res.writeHead(switches.failNext.status, { ...headers, 'content-type': 'text/html; charset=UTF-8', 'content-length': Buffer.byteLength(page) });
      res.end(page);
      return;
    }

    if (switches.html500) {
      res.writeHead(500, { ...headers, 'content-type': 'text/html; charset=UTF-8', 'content-length': Buffer.byteLength(HTML_500) });
      res.end(HTML_500);
      return;
    }

    if (limit.throttled) {
      stats.throttled++;
      const retryAfter = switches.retryAfter === 'none' ? null : switches.retryAfter === 'auto' ? limit.retryAfter : switches.retryAfter;
      if (retryAfter !== null) {
        headers['retry-after'] = String(retryAfter);
        headers['x-ratelimit-reset'] = String(Math.floor(Date.now() / 1000) + retryAfter);
      }
      if (switches.throttleMode === 'http200') sendJson(res, 200, { data: null, ...THROTTLE_BODY }, headers);
      else sendJson(res, 429, THROTTLE_BODY, headers);
      return;
    }

    const dataset = casesDataset();
    const companyId = token === null || switches.revokedTokens.includes(token) ? undefined : dataset.tokens.get(token);
    const company = companyId === undefined ? undefined : dataset.companies.get(companyId);
    if (company === undefined) {
      stats.unauthenticated++;
      if (switches.unauthenticated === 'http200') {
        sendJson(res, 200, { data: null, errors: [{ message: UNAUTHENTICATED_MESSAGE, extensions: { category: 'authentication' } }] }, headers);
      } else if (switches.unauthenticated === 'http403') {
        sendJson(res, 403, { message: 'This action is unauthorized.' }, headers);
      } else {
        sendJson(res, 401, { message: UNAUTHENTICATED_MESSAGE }, headers);
      }
      return;
    }

    if (path !== ENDPOINT_PATH) {
      sendJson(res, 404, { message: 'Not Found' }, headers);
      return;
    }
    if (method !== 'POST') {
      sendJson(res, 405, { message: `The ${method} method is not supported for route graphql. Supported methods: POST.` }, { ...headers, allow: 'POST' });
      return;
    }
    if (tooLarge) {
      sendJson(res, 413, { message: `Request body larger than ${MAX_BODY_BYTES} bytes.` }, headers);
      return;
    }
    let body: unknown;
    try {
      body = JSON.parse(text) as unknown;
    } catch {
      sendJson(res, 400, { errors: [{ message: 'The request body is not valid JSON.' }] }, headers);
      return;
    }
    if (!isPlainObject(body) || typeof body.query !== 'string' || body.query.trim() === '') {
      sendJson(res, 400, { errors: [{ message: 'Must provide query string.' }] }, headers);
      return;
    }
    const { variables, operationName } = body;
    if (variables !== undefined && variables !== null && !isPlainObject(variables)) {
      sendJson(res, 400, { errors: [{ message: 'Variables must be provided as an object.' }] }, headers);
      return;
    }
    if (operationName !== undefined && operationName !== null && typeof operationName !== 'string') {
      sendJson(res, 400, { errors: [{ message: 'operationName must be a string.' }] }, headers);
      return;
    }

    const result = await executeCasesQuery({
      mode: switches.schemaMode,
      shapes: { caseTexts: switches.caseTexts, orderBy: switches.orderByShape, hoursCaseFilter: switches.hoursCaseFilter },
      source: body.query,
      variableValues: variables ?? null,
      operationName: operationName ?? null,
      introspection: switches.introspection,
      context: {
        company,
        switches: { limitCap: switches.limitCap, overCap: switches.overCap, betweenTo: switches.betweenTo, sqlErrorField: switches.sqlErrorField },
        mutationLog,
      },
    });
    const reply: Record<string, unknown> = {};
    if (result.data !== undefined) reply.data = result.data;
    if (result.errors !== undefined && result.errors.length > 0) reply.errors = formatErrors(result.errors, switches.validationLayout);
    sendJson(res, 200, reply, headers);
  }

  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://sandbox.invalid');
    const fail = (): void => {
      if (!res.headersSent) sendJson(res, 500, { message: 'sandbox error' });
      else res.destroy();
    };
    if (url.pathname.startsWith('/__sandbox/')) {
      readBody(req)
        .then(({ text }) => serveControls(req.method ?? 'GET', url.pathname, text, res, controls))
        .catch(fail);
      return;
    }
    stats.requests++;
    handleGraphql(req, res, url.pathname).catch(fail);
  });

  const listening = await listen(server, options.port ?? 0, host);

  return {
    url: `${listening.origin}${ENDPOINT_PATH}`,
    port: listening.port,
    tokens: { demo: CASES_DEMO_TOKEN, other: CASES_OTHER_TOKEN },
    get switches() {
      return { ...switches, revokedTokens: [...switches.revokedTokens], failNext: { ...switches.failNext } };
    },
    stats,
    mutationLog,
    setSwitches,
    resetSwitches() {
      switches = defaultSwitches(options);
    },
    resetStats,
    close: closeOnce(server, delays),
  };
}

if (import.meta.main) {
  const port = Number(process.env.CASES_SANDBOX_PORT ?? 4102);
  const sandbox = await startCasesSandbox({ port });
  process.stdout.write(`${sandbox.url}\n`);
  process.stdout.write(
    `Case-management sandbox (fake Ordrestyring GraphQL) listening.\n` +
      `  demo token:  ${sandbox.tokens.demo}\n` +
      `  other token: ${sandbox.tokens.other}\n` +
      `Try:\n` +
      `  curl -H 'authorization: Bearer ${sandbox.tokens.demo}' -H 'content-type: application/json' -d '{"query":"{ cases(pagination:{limit:3}, orderBy:{field:\\"updatedAt\\", direction:DESC}) { items { id caseNumber description status { text } } nextCursor } }"}' ${sandbox.url}\n` +
      `  curl -X POST -H 'content-type: application/json' -d '{"throttleNext":1}' http://127.0.0.1:${sandbox.port}/__sandbox/switches\n`,
  );
  closeOnSignals(() => sandbox.close());
}
