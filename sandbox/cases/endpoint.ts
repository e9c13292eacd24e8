// The case-management sandbox's one endpoint, POST /graphql, as Laravel (rebing/graphql-laravel)
// answers it: the request is recorded and counted in its rate-limit window, then goes through a
// table of checks in the upstream's order (injected faults, throttling, the token, the path, the
// method, the body), each answering or letting it pass, and is finally run through graphql-js.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { GraphQLError, GraphQLFormattedError } from 'graphql';
import { type JsonStyle, MAX_BODY_BYTES, type PendingDelays, parseJsonLoose, readBody, sendJson } from '../http-kit.ts';
import { type CompanyData, casesDataset } from './data.ts';
import { executeCasesQuery } from './schema.ts';
import {
  type CasesSandboxStats,
  type CasesSwitches,
  isPlainObject,
  THROTTLE_BODY,
  UNAUTHENTICATED_MESSAGE,
} from './switches.ts';

export const ENDPOINT_PATH = '/graphql';
const REQUEST_LOG_SIZE = 200;
const WINDOW_MS = 60_000;

/** Laravel's JSON: `application/json`, its rate-limit headers before content-type and content-length. */
const LARAVEL_JSON: JsonStyle = { contentType: 'application/json', callHeadersFirst: true };

export function sendLaravelJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Readonly<Record<string, string>> = {},
): void {
  sendJson(res, status, body, headers, LARAVEL_JSON);
}

const HTML_500 = `<!DOCTYPE html>
<html lang="en">
<head><meta charset="utf-8"><title>Server Error</title></head>
<body>
<div class="flex-center position-ref full-height">\
<div class="code">500</div><div class="message">Server Error</div></div>
</body>
</html>
`;

export interface CasesState {
  switches: CasesSwitches;
  readonly stats: CasesSandboxStats;
  readonly mutationLog: string[];
  /** Per token (or client address): the times of the requests of the last minute. */
  readonly windows: Map<string, number[]>;
  readonly delays: PendingDelays;
}

function bearerToken(header: string | undefined): string | null {
  if (header === undefined) return null;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match === null ? null : match[1]!;
}

/** graphql-js errors as JSON, moved to the legacy rebing layout when asked. */
function formatErrors(errors: ReadonlyArray<GraphQLError>, layout: CasesSwitches['validationLayout']): unknown[] {
  return errors.map((error) => {
    const json: GraphQLFormattedError = error.toJSON();
    const validation = json.extensions?.validation;
    if (layout !== 'legacy' || validation === undefined) return json;
    const { extensions, ...rest } = json;
    const { validation: _moved, category: _category, ...otherExtensions } = extensions ?? {};
    return {
      ...rest,
      ...(Object.keys(otherExtensions).length > 0 ? { extensions: otherExtensions } : {}),
      type: 'ValidationError',
      validation,
    };
  });
}

interface RateVerdict {
  readonly throttled: boolean;
  readonly remaining: number;
  readonly retryAfter: number;
}

/** Counts the request in its window; returns whether it is throttled and the header values. */
function rateLimit(s: CasesState, key: string): RateVerdict {
  const now = Date.now();
  const limit = s.switches.rateLimitPerMinute;
  const hits = (s.windows.get(key) ?? []).filter((t) => t > now - WINDOW_MS);
  s.windows.set(key, hits);
  if (s.switches.throttleNext > 0) {
    s.switches.throttleNext--;
    return { throttled: true, remaining: 0, retryAfter: 1 };
  }
  if (hits.length >= limit) {
    const oldest = hits[hits.length - limit]!;
    return { throttled: true, remaining: 0, retryAfter: Math.max(1, Math.ceil((oldest + WINDOW_MS - now) / 1000)) };
  }
  hits.push(now);
  return { throttled: false, remaining: limit - hits.length, retryAfter: 0 };
}

/** One /graphql request on its way through the checks. */
interface Call {
  readonly s: CasesState;
  readonly req: IncomingMessage;
  readonly res: ServerResponse;
  readonly method: string;
  readonly path: string;
  readonly text: string;
  readonly tooLarge: boolean;
  readonly token: string | null;
  readonly limit: RateVerdict;
  /** The rate-limit headers every answer carries (a throttled one adds Retry-After). */
  readonly headers: Record<string, string>;
}

/** A check answers the call (true) or lets it pass (false). */
type Check = (call: Call) => boolean;

function failNext({ s, res, headers }: Call): boolean {
  if (s.switches.failNext.count <= 0) return false;
  s.switches.failNext = { ...s.switches.failNext, count: s.switches.failNext.count - 1 };
  const page = HTML_500.replaceAll('500', String(s.switches.failNext.status));
  res.writeHead(s.switches.failNext.status, {
    ...headers,
    'content-type': 'text/html; charset=UTF-8',
    'content-length': Buffer.byteLength(page),
  });
  res.end(page);
  return true;
}

function html500({ s, res, headers }: Call): boolean {
  if (!s.switches.html500) return false;
  res.writeHead(500, {
    ...headers,
    'content-type': 'text/html; charset=UTF-8',
    'content-length': Buffer.byteLength(HTML_500),
  });
  res.end(HTML_500);
  return true;
}

function throttled({ s, res, limit, headers }: Call): boolean {
  if (!limit.throttled) return false;
  s.stats.throttled++;
  const retryAfter =
    s.switches.retryAfter === 'none'
      ? null
      : s.switches.retryAfter === 'auto'
        ? limit.retryAfter
        : s.switches.retryAfter;
  if (retryAfter !== null) {
    headers['retry-after'] = String(retryAfter);
    headers['x-ratelimit-reset'] = String(Math.floor(Date.now() / 1000) + retryAfter);
  }
  if (s.switches.throttleMode === 'http200') sendLaravelJson(res, 200, { data: null, ...THROTTLE_BODY }, headers);
  else sendLaravelJson(res, 429, THROTTLE_BODY, headers);
  return true;
}

/** The company the token reaches (undefined: missing, unknown or revoked). */
function companyOf({ s, token }: Call): CompanyData | undefined {
  const dataset = casesDataset();
  const companyId = token === null || s.switches.revokedTokens.includes(token) ? undefined : dataset.tokens.get(token);
  return companyId === undefined ? undefined : dataset.companies.get(companyId);
}

function unauthenticated(call: Call): boolean {
  if (companyOf(call) !== undefined) return false;
  const { s, res, headers } = call;
  s.stats.unauthenticated++;
  if (s.switches.unauthenticated === 'http200') {
    sendLaravelJson(
      res,
      200,
      { data: null, errors: [{ message: UNAUTHENTICATED_MESSAGE, extensions: { category: 'authentication' } }] },
      headers,
    );
  } else if (s.switches.unauthenticated === 'http403') {
    sendLaravelJson(res, 403, { message: 'This action is unauthorized.' }, headers);
  } else {
    sendLaravelJson(res, 401, { message: UNAUTHENTICATED_MESSAGE }, headers);
  }
  return true;
}

/** The body's JSON, or undefined when it is not JSON. */
function parsedBody(text: string): { value: unknown } | undefined {
  try {
    return { value: JSON.parse(text) as unknown };
  } catch {
    return undefined;
  }
}

/** What a body must be: JSON, an object with a query string, object variables, a string operationName. */
function bodyProblem(text: string): string | undefined {
  const parsed = parsedBody(text);
  if (parsed === undefined) return 'The request body is not valid JSON.';
  const body = parsed.value;
  if (!isPlainObject(body) || typeof body.query !== 'string' || body.query.trim() === '')
    return 'Must provide query string.';
  const { variables, operationName } = body;
  if (variables !== undefined && variables !== null && !isPlainObject(variables))
    return 'Variables must be provided as an object.';
  if (operationName !== undefined && operationName !== null && typeof operationName !== 'string')
    return 'operationName must be a string.';
  return undefined;
}

/** The checks in the upstream's order; what passes them all is executed. */
const CHECKS: readonly Check[] = [
  failNext,
  html500,
  throttled,
  unauthenticated,
  ({ res, path, headers }) => {
    if (path === ENDPOINT_PATH) return false;
    sendLaravelJson(res, 404, { message: 'Not Found' }, headers);
    return true;
  },
  ({ res, method, headers }) => {
    if (method === 'POST') return false;
    sendLaravelJson(
      res,
      405,
      { message: `The ${method} method is not supported for route graphql. Supported methods: POST.` },
      { ...headers, allow: 'POST' },
    );
    return true;
  },
  ({ res, tooLarge, headers }) => {
    if (!tooLarge) return false;
    sendLaravelJson(res, 413, { message: `Request body larger than ${MAX_BODY_BYTES} bytes.` }, headers);
    return true;
  },
  ({ res, text, headers }) => {
    const problem = bodyProblem(text);
    if (problem === undefined) return false;
    sendLaravelJson(res, 400, { errors: [{ message: problem }] }, headers);
    return true;
  },
];

async function execute(call: Call): Promise<void> {
  const { s, res, headers } = call;
  const body = JSON.parse(call.text) as {
    query: string;
    variables?: Record<string, unknown> | null;
    operationName?: string | null;
  };
  const result = await executeCasesQuery({
    mode: s.switches.schemaMode,
    shapes: {
      caseTexts: s.switches.caseTexts,
      orderBy: s.switches.orderByShape,
      hoursCaseFilter: s.switches.hoursCaseFilter,
    },
    source: body.query,
    variableValues: body.variables ?? null,
    operationName: body.operationName ?? null,
    introspection: s.switches.introspection,
    context: {
      company: companyOf(call)!,
      switches: {
        limitCap: s.switches.limitCap,
        overCap: s.switches.overCap,
        betweenTo: s.switches.betweenTo,
        sqlErrorField: s.switches.sqlErrorField,
      },
      mutationLog: s.mutationLog,
    },
  });
  const reply: Record<string, unknown> = {};
  if (result.data !== undefined) reply.data = result.data;
  if (result.errors !== undefined && result.errors.length > 0)
    reply.errors = formatErrors(result.errors, s.switches.validationLayout);
  sendLaravelJson(res, 200, reply, headers);
}

export async function handleGraphql(
  s: CasesState,
  req: IncomingMessage,
  res: ServerResponse,
  path: string,
): Promise<void> {
  const method = req.method ?? 'GET';
  const { text, tooLarge } = await readBody(req);
  const recorded = parseJsonLoose(text);
  s.stats.lastRequest = { method, path: req.url ?? path, headers: { ...req.headers }, body: recorded };
  s.stats.requestBodies.push(recorded);
  if (s.stats.requestBodies.length > REQUEST_LOG_SIZE)
    s.stats.requestBodies.splice(0, s.stats.requestBodies.length - REQUEST_LOG_SIZE);

  const token = bearerToken(req.headers.authorization);
  const limit = rateLimit(s, token === null ? `ip:${req.socket.remoteAddress ?? ''}` : `token:${token}`);
  const headers: Record<string, string> = {
    'x-ratelimit-limit': String(s.switches.rateLimitPerMinute),
    'x-ratelimit-remaining': String(limit.remaining),
  };
  if (s.switches.delayMs > 0 && !(await s.delays.delay(s.switches.delayMs, res))) return;
  const call: Call = { s, req, res, method, path, text, tooLarge, token, limit, headers };
  if (CHECKS.some((check) => check(call))) return;
  await execute(call);
}
