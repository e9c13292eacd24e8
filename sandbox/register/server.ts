// Sandbox fake of the Danish company register's search API (CVR distribution, Elasticsearch 6
// style), reached over HTTP exactly like the real upstream. See ../shared/upstreams/register.md.
//
//   POST {url}/virksomhed/_search        Vrvirksomhed documents
//   POST {url}/produktionsenhed/_search  VrproduktionsEnhed documents
//   POST {url}/deltager/_search          Vrdeltagerperson documents
//   POST {url}/_search                   all three (also at the server root: /_search)
//
// `url` ends in `/cvr-permanent`, like the real base URL, so a client that joins paths wrongly
// (dropping the base path) gets a 404 here just as it would upstream. HTTP Basic is required;
// a wrong or missing credential gets a plain-text 401 (the real body is unknown, §5).
//
// Sandbox-only controls (no auth; they do not count as register requests):
//   POST /__sandbox/fault  { "fault": "none|unauthorized|forbidden|server_error|html_200|slow", "delayMs"?: n }
//   GET  /__sandbox/fault  current fault;  GET /__sandbox/stats  request counters
//
// Run as a script: `node sandbox/register/server.ts` listens on 127.0.0.1:4101 with demo/demo
// (REGISTER_SANDBOX_PORT overrides the port; 0 picks a free one).

import { createServer } from 'node:http';
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { REGISTER_ALIASES, esErrorBody, executeSearch, registerIndices } from './query.ts';
import type { RegisterAlias, SearchIndex } from './query.ts';
import {
  closeOnce,
  closeOnSignals,
  findRoute,
  type JsonStyle,
  listen,
  MAX_BODY_BYTES,
  PendingDelays,
  parseJsonLoose,
  type Route,
  readBody,
  sendJson as sendKitJson,
  sendText,
} from '../http-kit.ts';

export const REGISTER_FAULTS = ['none', 'unauthorized', 'forbidden', 'server_error', 'html_200', 'slow'] as const;

export type RegisterFault = (typeof REGISTER_FAULTS)[number];

/** Default delay of the `slow` fault: longer than the gateway's 20 s register timeout. */
export const DEFAULT_SLOW_DELAY_MS = 25_000;

const BASE_PATH = '/cvr-permanent';

export interface RegisterSandboxOptions {
  /** 0 (the default) picks a free port. */
  port?: number;
  /** Defaults to 127.0.0.1. */
  host?: string;
  username: string;
  password: string;
  /** Overlap above which `overLimitEvents` counts (default 4, the gateway's register throttle). */
  maxConcurrent?: number;
}

export interface RecordedRequest {
  method: string;
  /** Path and query string as received. */
  path: string;
  headers: IncomingHttpHeaders;
  /** Parsed JSON when the body was JSON, otherwise the raw text (undefined when empty). */
  body: unknown;
}

export interface RegisterSandboxStats {
  /** Register requests received (sandbox control requests excluded). */
  requests: number;
  /** Register requests in progress right now. */
  inFlight: number;
  /** Highest number of register requests seen in progress at the same time. */
  maxConcurrentSeen: number;
  /** How many times a request started while more than `maxConcurrent` were in progress (itself included). */
  overLimitEvents: number;
  lastRequest: RecordedRequest | null;
}

export interface RegisterSandbox {
  /** Base URL corresponding to the real `.../cvr-permanent`; POST `${url}/virksomhed/_search`. */
  readonly url: string;
  readonly port: number;
  /** Live counters (the same object is updated in place). */
  readonly stats: RegisterSandboxStats;
  readonly fault: RegisterFault;
  setFault(fault: RegisterFault, options?: { delayMs?: number }): void;
  resetStats(): void;
  close(): Promise<void>;
}

const ALIAS_PATHS: ReadonlyMap<string, readonly RegisterAlias[]> = new Map<string, readonly RegisterAlias[]>([
  [`${BASE_PATH}/virksomhed/_search`, ['virksomhed']],
  [`${BASE_PATH}/produktionsenhed/_search`, ['produktionsenhed']],
  [`${BASE_PATH}/deltager/_search`, ['deltager']],
  [`${BASE_PATH}/_search`, REGISTER_ALIASES],
  ['/_search', REGISTER_ALIASES],
]);

const MAINTENANCE_PAGE = `<!DOCTYPE html>
<html lang="da">
<head><meta charset="utf-8"><title>Virk - Driftsforstyrrelse</title></head>
<body>
<h1>Vi oplever i øjeblikket driftsforstyrrelser</h1>
<p>Erhvervsstyrelsens systemer er midlertidigt utilgængelige. Prøv igen senere.</p>
</body>
</html>
`;

function isFault(value: unknown): value is RegisterFault {
  return typeof value === 'string' && (REGISTER_FAULTS as readonly string[]).includes(value);
}

function validDelay(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 && value <= 600_000;
}

/** Elasticsearch writes `charset=UTF-8`; `?pretty` indents. */
const ES_JSON: JsonStyle = { contentType: 'application/json; charset=UTF-8' };
const ES_JSON_PRETTY: JsonStyle = { ...ES_JSON, pretty: true };

function sendJson(res: ServerResponse, status: number, body: unknown, pretty = false): void {
  sendKitJson(res, status, body, {}, pretty ? ES_JSON_PRETTY : ES_JSON);
}

function checkBasicAuth(header: string | undefined, username: string, password: string): boolean {
  if (header === undefined) return false;
  const match = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header);
  if (match === null) return false;
  const decoded = Buffer.from(match[1]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  return colon >= 0 && decoded.slice(0, colon) === username && decoded.slice(colon + 1) === password;
}

/** What one running register sandbox keeps; the handlers below read and change it. */
interface RegisterState {
  readonly username: string;
  readonly password: string;
  readonly maxConcurrent: number;
  readonly stats: RegisterSandboxStats;
  readonly delays: PendingDelays;
  fault: RegisterFault;
  slowDelayMs: number;
}

function setFault(state: RegisterState, next: RegisterFault, faultOptions?: { delayMs?: number }): void {
  if (!isFault(next)) throw new TypeError(`unknown register sandbox fault: ${String(next)}`);
  const delay = faultOptions?.delayMs;
  if (delay !== undefined && !validDelay(delay)) throw new TypeError(`invalid delayMs: ${String(delay)}`);
  state.fault = next;
  state.slowDelayMs = delay ?? DEFAULT_SLOW_DELAY_MS;
}

function postFault(state: RegisterState, res: ServerResponse, text: string): void {
  const body = parseJsonLoose(text);
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    sendJson(res, 400, {
      error: 'expected a JSON object { "fault": ..., "delayMs"?: number }',
      faults: REGISTER_FAULTS,
    });
    return;
  }
  const { fault: next, delayMs } = body as { fault?: unknown; delayMs?: unknown };
  if (!isFault(next)) {
    sendJson(res, 400, { error: `unknown fault ${JSON.stringify(next)}`, faults: REGISTER_FAULTS });
    return;
  }
  if (delayMs !== undefined && !validDelay(delayMs)) {
    sendJson(res, 400, { error: 'delayMs must be a number of milliseconds between 0 and 600000' });
    return;
  }
  setFault(state, next, delayMs === undefined ? undefined : { delayMs });
  sendJson(res, 200, { fault: state.fault, delayMs: state.slowDelayMs });
}

type ControlHandler = (state: RegisterState, res: ServerResponse, text: string) => void;

/** The sandbox controls (paths below the base path are served too). */
const CONTROL_ROUTES: readonly Route<ControlHandler>[] = [
  {
    method: 'GET',
    path: '/__sandbox/stats',
    handle: (state, res) =>
      sendJson(res, 200, {
        ...state.stats,
        fault: state.fault,
        delayMs: state.slowDelayMs,
        maxConcurrent: state.maxConcurrent,
      }),
  },
  {
    method: 'GET',
    path: '/__sandbox/fault',
    handle: (state, res) => sendJson(res, 200, { fault: state.fault, delayMs: state.slowDelayMs }),
  },
  { method: 'POST', path: '/__sandbox/fault', handle: postFault },
];

async function handleControl(
  state: RegisterState,
  req: IncomingMessage,
  res: ServerResponse,
  path: string,
): Promise<void> {
  const { text } = await readBody(req);
  const route = findRoute(CONTROL_ROUTES, req.method ?? '', path);
  if (route !== undefined) return route.handle(state, res, text);
  sendJson(res, 404, {
    error: `no sandbox control at ${req.method ?? ''} ${path}`,
    controls: ['POST /__sandbox/fault', 'GET /__sandbox/fault', 'GET /__sandbox/stats'],
  });
}

function sendUnauthorized(res: ServerResponse): void {
  sendText(res, 401, '401 Unauthorized\n', { 'www-authenticate': 'Basic realm="cvr-permanent"' });
}

/** Answers the switched-on fault (after the `slow` delay); true when the request is answered (or gone). */
async function answerFault(state: RegisterState, res: ServerResponse): Promise<boolean> {
  if (state.fault === 'slow' && !(await state.delays.delay(state.slowDelayMs, res))) return true;
  switch (state.fault) {
    case 'unauthorized':
      sendUnauthorized(res);
      return true;
    case 'forbidden':
      sendText(res, 403, '403 Forbidden: this account has no access to the CVR distribution\n');
      return true;
    case 'server_error':
      sendJson(
        res,
        503,
        esErrorBody(
          503,
          'search_phase_execution_exception',
          'all shards failed',
          { phase: 'query', grouped: true, failed_shards: [] },
          [],
        ),
      );
      return true;
    case 'html_200':
      res.writeHead(200, {
        'content-type': 'text/html; charset=utf-8',
        'content-length': Buffer.byteLength(MAINTENANCE_PAGE),
      });
      res.end(MAINTENANCE_PAGE);
      return true;
    default:
      return false;
  }
}

/** A path that is no search endpoint: ES's 404 for an unknown index, its 400 for anything else. */
function sendNoRoute(res: ServerResponse, path: string, method: string): void {
  const indexMatch = /^\/cvr-permanent\/([^/]+)\/_search$/.exec(path) ?? /^\/([^/_][^/]*)\/_search$/.exec(path);
  if (indexMatch === null) {
    sendJson(res, 400, { error: `no handler found for uri [${path}] and method [${method}]` });
    return;
  }
  const name = decodeURIComponent(indexMatch[1]!);
  sendJson(
    res,
    404,
    esErrorBody(404, 'index_not_found_exception', 'no such index', {
      'resource.type': 'index_or_alias',
      'resource.id': name,
      index_uuid: '_na_',
      index: name,
    }),
  );
}

/** The request's JSON body (undefined when empty), or the answer that refuses the request. */
function searchBody(
  req: IncomingMessage,
  url: URL,
  text: string,
  tooLarge: boolean,
): { body: unknown } | { status: number; answer: unknown } {
  const path = url.pathname;
  for (const param of url.searchParams.keys()) {
    if (param !== 'pretty')
      return {
        status: 400,
        answer: esErrorBody(
          400,
          'illegal_argument_exception',
          `request [${path}] contains unrecognized parameter: [${param}] (the register sandbox accepts only [pretty])`,
        ),
      };
  }
  if (tooLarge)
    return {
      status: 413,
      answer: esErrorBody(413, 'content_too_long_exception', `request body is larger than ${MAX_BODY_BYTES} bytes`),
    };
  const contentType = req.headers['content-type'];
  const mediaType = contentType?.split(';')[0]?.trim().toLowerCase();
  if (text.length > 0 && mediaType !== 'application/json') {
    const reason =
      contentType === undefined
        ? 'Content-Type header is missing'
        : `Content-Type header [${contentType}] is not supported`;
    return { status: 406, answer: { error: reason, status: 406 } };
  }
  if (text.trim() === '') return { body: undefined };
  try {
    return { body: JSON.parse(text) as unknown };
  } catch (error) {
    const reason = error instanceof Error ? error.message : 'malformed JSON';
    return {
      status: 400,
      answer: esErrorBody(400, 'json_parse_exception', `Unexpected character in request body: ${reason}`),
    };
  }
}

async function handleRegister(
  state: RegisterState,
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
): Promise<void> {
  const method = req.method ?? 'GET';
  const { text, tooLarge } = await readBody(req);
  state.stats.lastRequest = { method, path: req.url ?? '', headers: { ...req.headers }, body: parseJsonLoose(text) };
  if (await answerFault(state, res)) return;
  if (!checkBasicAuth(req.headers.authorization, state.username, state.password)) return sendUnauthorized(res);
  const path = url.pathname;
  const aliases = ALIAS_PATHS.get(path);
  if (aliases === undefined) return sendNoRoute(res, path, method);
  if (method !== 'POST') {
    res.setHeader('allow', 'POST');
    sendJson(res, 405, {
      error: `Incorrect HTTP method for uri [${req.url ?? path}] and method [${method}], allowed: [POST]`,
      status: 405,
    });
    return;
  }
  const parsed = searchBody(req, url, text, tooLarge);
  if ('answer' in parsed) return sendJson(res, parsed.status, parsed.answer);
  const indices: SearchIndex[] = aliases.map((alias) => registerIndices[alias]);
  const result = executeSearch(indices, parsed.body);
  sendJson(res, result.status, result.body, url.searchParams.has('pretty'));
}

/** Counts a register request in flight until its response closes (overlap above `maxConcurrent` is an event). */
function countInFlight(state: RegisterState, res: ServerResponse): void {
  const { stats } = state;
  stats.requests++;
  stats.inFlight++;
  if (stats.inFlight > stats.maxConcurrentSeen) stats.maxConcurrentSeen = stats.inFlight;
  if (stats.inFlight > state.maxConcurrent) stats.overLimitEvents++;
  let done = false;
  res.once('close', () => {
    if (!done) {
      done = true;
      stats.inFlight--;
    }
  });
}

function sandboxError(res: ServerResponse): void {
  if (!res.headersSent) sendText(res, 500, 'sandbox error\n');
  else res.destroy();
}

/** Starts the register sandbox on 127.0.0.1 (or `host`); resolves once it listens. */
export async function startRegisterSandbox(options: RegisterSandboxOptions): Promise<RegisterSandbox> {
  if (typeof options.username !== 'string' || typeof options.password !== 'string') {
    throw new TypeError('startRegisterSandbox: username and password are required');
  }
  const stats: RegisterSandboxStats = {
    requests: 0,
    inFlight: 0,
    maxConcurrentSeen: 0,
    overLimitEvents: 0,
    lastRequest: null,
  };
  const state: RegisterState = {
    username: options.username,
    password: options.password,
    maxConcurrent: options.maxConcurrent ?? 4,
    stats,
    delays: new PendingDelays(),
    fault: 'none',
    slowDelayMs: DEFAULT_SLOW_DELAY_MS,
  };

  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://sandbox.invalid');
    if (url.pathname.startsWith('/__sandbox/') || url.pathname.startsWith(`${BASE_PATH}/__sandbox/`)) {
      const path = url.pathname.startsWith(BASE_PATH) ? url.pathname.slice(BASE_PATH.length) : url.pathname;
      handleControl(state, req, res, path).catch(() => sandboxError(res));
      return;
    }
    countInFlight(state, res);
    handleRegister(state, req, res, url).catch(() => sandboxError(res));
  });

  const listening = await listen(server, options.port ?? 0, options.host ?? '127.0.0.1');
  return {
    url: `${listening.origin}${BASE_PATH}`,
    port: listening.port,
    stats,
    get fault() {
      return state.fault;
    },
    setFault: (next, faultOptions) => setFault(state, next, faultOptions),
    resetStats() {
      stats.requests = 0;
      stats.maxConcurrentSeen = stats.inFlight;
      stats.overLimitEvents = 0;
      stats.lastRequest = null;
    },
    close: closeOnce(server, state.delays),
  };
}

if (import.meta.main) {
  const port = Number(process.env.REGISTER_SANDBOX_PORT ?? 4101);
  const sandbox = await startRegisterSandbox({ port, username: 'demo', password: 'demo' });
  process.stdout.write(`${sandbox.url}\n`);
  process.stdout.write(
    `Company-register sandbox listening (Basic auth demo/demo). Try:\n` +
      `  curl -u demo:demo -H 'content-type: application/json' -d ` +
      `'{"query":{"match":{"Vrvirksomhed.virksomhedMetadata.nyesteNavn.navn":{"query":"Demo",` +
      `"operator":"and"}}}}' ${sandbox.url}/virksomhed/_search\n` +
      `  curl -X POST -H 'content-type: application/json' -d ` +
      `'{"fault":"slow","delayMs":25000}' http://127.0.0.1:${sandbox.port}/__sandbox/fault\n`,
  );
  closeOnSignals(() => sandbox.close());
}
