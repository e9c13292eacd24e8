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
//
// This file holds the controls and the start; the endpoint, its checks and the GraphQL execution are
// in endpoint.ts, the switches in switches.ts, the schema in schema.ts (its SDL in sdl.ts).
import { createServer } from 'node:http';
import {
  checkedSwitches,
  closeOnce,
  closeOnSignals,
  listen,
  PendingDelays,
  readBody,
  type SandboxControls,
  serveControls,
  switchError,
} from '../http-kit.ts';
import { CASES_DEMO_TOKEN, CASES_OTHER_TOKEN } from './data.ts';
import { type CasesState, ENDPOINT_PATH, handleGraphql, sendLaravelJson } from './endpoint.ts';
import {
  type CasesSandboxOptions,
  type CasesSandboxStats,
  type CasesSwitches,
  defaultSwitches,
  SWITCH_CHECKS,
} from './switches.ts';

export type { CasesSandboxOptions, CasesSandboxStats, CasesSwitches, RecordedRequest } from './switches.ts';
export {
  CASES_SLOW_DELAY_MS,
  DEFAULT_RATE_LIMIT_PER_MINUTE,
  THROTTLE_BODY,
  UNAUTHENTICATED_MESSAGE,
} from './switches.ts';

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

function setSwitches(s: CasesState, partial: Partial<CasesSwitches>): Readonly<CasesSwitches> {
  const issue = switchError(partial, SWITCH_CHECKS);
  if (issue !== undefined) throw new TypeError(issue);
  const { switches } = s;
  s.switches = {
    ...switches,
    ...partial,
    revokedTokens: [...(partial.revokedTokens ?? switches.revokedTokens)],
    failNext: { ...(partial.failNext ?? switches.failNext) },
  };
  return { ...s.switches };
}

function resetStats(s: CasesState): void {
  const { stats } = s;
  stats.requests = 0;
  stats.throttled = 0;
  stats.unauthenticated = 0;
  stats.lastRequest = null;
  stats.requestBodies.length = 0;
  s.mutationLog.length = 0;
  s.windows.clear();
}

/** The `/__sandbox/` controls: no request log (`stats` carries the recent bodies); a reset answers the switches. */
function controls(s: CasesState, options: CasesSandboxOptions): SandboxControls {
  return {
    switches: () => s.switches,
    ...checkedSwitches<CasesSwitches>(SWITCH_CHECKS, (partial) => setSwitches(s, partial)),
    stats: () => ({ ...s.stats, mutationLog: s.mutationLog }),
    reset: () => {
      s.switches = defaultSwitches(options);
      resetStats(s);
      return s.switches;
    },
  };
}

/** Starts the case-management sandbox on 127.0.0.1 (or `host`); resolves once it listens. */
export async function startCasesSandbox(options: CasesSandboxOptions = {}): Promise<CasesSandbox> {
  const initial = defaultSwitches(options);
  const problem = switchError(
    {
      schemaMode: initial.schemaMode,
      caseTexts: initial.caseTexts,
      orderByShape: initial.orderByShape,
      hoursCaseFilter: initial.hoursCaseFilter,
      rateLimitPerMinute: initial.rateLimitPerMinute,
    },
    SWITCH_CHECKS,
  );
  if (problem !== undefined) throw new TypeError(`startCasesSandbox: ${problem}`);
  const host = options.host ?? '127.0.0.1';
  const stats: CasesSandboxStats = {
    requests: 0,
    throttled: 0,
    unauthenticated: 0,
    lastRequest: null,
    requestBodies: [],
  };
  const s: CasesState = {
    switches: { ...initial, revokedTokens: [] },
    stats,
    mutationLog: [],
    windows: new Map(),
    delays: new PendingDelays(),
  };
  const sandboxControls = controls(s, options);

  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://sandbox.invalid');
    const fail = (): void => {
      if (!res.headersSent) sendLaravelJson(res, 500, { message: 'sandbox error' });
      else res.destroy();
    };
    if (url.pathname.startsWith('/__sandbox/')) {
      readBody(req)
        .then(({ text }) => serveControls(req.method ?? 'GET', url.pathname, text, res, sandboxControls))
        .catch(fail);
      return;
    }
    stats.requests++;
    handleGraphql(s, req, res, url.pathname).catch(fail);
  });

  const listening = await listen(server, options.port ?? 0, host);

  return {
    url: `${listening.origin}${ENDPOINT_PATH}`,
    port: listening.port,
    tokens: { demo: CASES_DEMO_TOKEN, other: CASES_OTHER_TOKEN },
    get switches() {
      return { ...s.switches, revokedTokens: [...s.switches.revokedTokens], failNext: { ...s.switches.failNext } };
    },
    stats,
    mutationLog: s.mutationLog,
    setSwitches: (partial) => setSwitches(s, partial),
    resetSwitches() {
      s.switches = defaultSwitches(options);
    },
    resetStats: () => resetStats(s),
    close: closeOnce(server, s.delays),
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
      `  curl -H 'authorization: Bearer ${sandbox.tokens.demo}' -H 'content-type: application/json' -d ` +
      `'{"query":"{ cases(pagination:{limit:3}, orderBy:{field:\\"updatedAt\\", direction:DESC}) { items { ` +
      `id caseNumber description status { text } } nextCursor } }"}' ${sandbox.url}\n` +
      `  curl -X POST -H 'content-type: application/json' -d ` +
      `'{"throttleNext":1}' http://127.0.0.1:${sandbox.port}/__sandbox/switches\n`,
  );
  closeOnSignals(() => sandbox.close());
}
