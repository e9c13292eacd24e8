// One tools/call followed from the caller to the upstream: a started gateway in front of the ledger
// sandbox (a login and a query per call), with a recording proxy between them that keeps the
// headers of every upstream request, and the gateway's pino output captured. The trace id of the
// call's log lines is the one every upstream request carries in its traceparent, each request with
// its own span id; a caller's trace (params._meta or the HTTP header) is continued, and a call that
// brought none starts a new one.
import { createServer, request, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createLogger } from '../runtime/operations/observability.ts';
import { openStore } from '../runtime/store/open-store.ts';
import type { PlatformStore } from '../runtime/store/store.ts';
import { parseTraceparent } from '../runtime/trace-context.ts';
import { LEDGER_DEMO_COMPANY_ID, LEDGER_DEMO_PASSWORD, LEDGER_DEMO_USER } from '../sandbox/ledger/data.ts';
import { startLedgerSandbox, type LedgerSandbox } from '../sandbox/ledger/server.ts';
import {
  captureLogLines,
  connectTenant,
  createTenant,
  resultJson,
  rpc,
  startGateway,
  type StartedGateway,
  type Tenant,
} from './support/gateway.ts';

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const PARENT_ID = '00f067aa0ba902b7';
const TRACESTATE = 'rojo=00f067aa0ba902b7,congo=t61rcWkgMzE';

/** An HTTP proxy to `target` that records the path and headers of every request it forwards. */
async function startRecordingProxy(
  target: string,
): Promise<{ url: string; seen: Array<{ path: string; headers: IncomingHttpHeaders }>; close(): Promise<void> }> {
  const to = new URL(target);
  const seen: Array<{ path: string; headers: IncomingHttpHeaders }> = [];
  const server: Server = createServer((req, res) => {
    seen.push({ path: req.url ?? '', headers: req.headers });
    const upstream = request(
      {
        host: to.hostname,
        port: to.port,
        path: req.url,
        method: req.method,
        headers: { ...req.headers, host: to.host },
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}${to.pathname.replace(/\/$/, '')}`;
  return { url, seen, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

describe('trace context from the caller to the upstream', () => {
  let store: PlatformStore;
  let sandbox: LedgerSandbox;
  let proxy: Awaited<ReturnType<typeof startRecordingProxy>>;
  let gw: StartedGateway;
  let tenant: Tenant;
  const { lines, destination } = captureLogLines();
  let seq = 0;

  /**
   * One tools/call over raw JSON-RPC: its request id (the x-request-id header), its `tool call` log line and what the
   * upstream saw.
   */
  async function call(meta: Record<string, unknown> | undefined, headers: Record<string, string> = {}) {
    const reqId = `trace-${++seq}`;
    const from = proxy.seen.length;
    const params = { name: 'ledger__list_companies', arguments: {}, ...(meta ? { _meta: meta } : {}) };
    const res = await rpc(
      gw.url,
      'ledger',
      tenant.token,
      { jsonrpc: '2.0', id: seq, method: 'tools/call', params },
      { 'x-request-id': reqId, ...headers },
    );
    expect(res.status).toBe(200);
    const result = (res.json as { result: unknown }).result;
    expect(resultJson(result)).toBeTruthy();
    await new Promise((resolve) => setImmediate(resolve)); // the log destination is asynchronous
    const line = lines.find((l) => l.reqId === reqId && l.msg === 'tool call');
    const upstream = proxy.seen.slice(from);
    return { reqId, line, upstream, parents: upstream.map((r) => parseTraceparent(r.headers.traceparent)) };
  }

  beforeAll(async () => {
    store = await openStore({});
    sandbox = await startLedgerSandbox({});
    proxy = await startRecordingProxy(sandbox.url);
    gw = await startGateway(store, {
      logger: createLogger('info', destination),
      env: { CONNECTOR_LEDGER_BASE_URL: proxy.url, RATE_LIMIT_BURST: '1000' },
    });
    tenant = await createTenant(store, { subscribe: ['ledger'] });
    await connectTenant(gw, tenant, 'ledger', {
      username: LEDGER_DEMO_USER,
      password: LEDGER_DEMO_PASSWORD,
      companyId: String(LEDGER_DEMO_COMPANY_ID),
    });
  }, 60_000);
  afterAll(async () => {
    await gw?.close();
    await proxy?.close();
    await sandbox?.close();
    await store?.close();
  });
  beforeEach(() => {
    lines.length = 0;
  });

  /**
   * Every upstream request (login and query) in `traceId`, each with its own span id, and the call's log line in it
   * too.
   */
  function expectOneTrace(c: Awaited<ReturnType<typeof call>>, traceId: string, flags: string, parentId?: string) {
    expect(c.upstream.map((r) => r.path)).toEqual(
      expect.arrayContaining([expect.stringMatching(/\/login$/), expect.stringMatching(/\/Query\/Get\//)]),
    );
    for (const p of c.parents) expect(p).toMatchObject({ traceId, flags });
    const spans = c.parents.map((p) => p!.parentId);
    const gatewaySpan = c.line?.spanId;
    expect(c.line).toMatchObject({ traceId, spanId: expect.stringMatching(/^[0-9a-f]{16}$/) });
    expect(new Set([...spans, gatewaySpan, ...(parentId ? [parentId] : [])]).size).toBe(
      spans.length + 1 + (parentId ? 1 : 0),
    );
  }

  it('starts a new trace for a call that brought none: its log line and every upstream request carry it', async () => {
    const c = await call(undefined);
    const traceId = c.parents[0]?.traceId;
    expect(traceId).toMatch(/^[0-9a-f]{32}$/);
    expectOneTrace(c, traceId!, '01');
    for (const r of c.upstream) expect(r.headers).not.toHaveProperty('tracestate');
    // The next call is another trace.
    const next = await call(undefined);
    expect(next.parents[0]?.traceId).not.toBe(traceId);
  });

  it('ignores an invalid traceparent and echoes it nowhere', async () => {
    const bogus = `00-${TRACE_ID.toUpperCase()}-${PARENT_ID}-01`;
    const c = await call(
      { traceparent: bogus, tracestate: TRACESTATE },
      { traceparent: `ff-${TRACE_ID}-${PARENT_ID}-01` },
    );
    expect(c.parents[0]?.traceId).not.toBe(TRACE_ID);
    expectOneTrace(c, c.parents[0]!.traceId, '01');
    expect(JSON.stringify(c.upstream)).not.toContain(TRACE_ID.toUpperCase());
    expect(JSON.stringify(c.upstream)).not.toContain('congo');
    expect(JSON.stringify(lines)).not.toContain(TRACE_ID.toUpperCase());
  });

  it('continues `params._meta.traceparent` upstream with a new span id per request, tracestate unchanged', async () => {
    const c = await call(
      { traceparent: `00-${TRACE_ID}-${PARENT_ID}-00`, tracestate: TRACESTATE },
      { traceparent: `00-${'a'.repeat(32)}-${'b'.repeat(16)}-01` },
    );
    expectOneTrace(c, TRACE_ID, '00', PARENT_ID);
    for (const r of c.upstream) expect(r.headers.tracestate).toBe(TRACESTATE);
  });

  it('continues the trace of the HTTP traceparent header', async () => {
    const c = await call(undefined, { traceparent: `00-${TRACE_ID}-${PARENT_ID}-01`, tracestate: TRACESTATE });
    expectOneTrace(c, TRACE_ID, '01', PARENT_ID);
    for (const r of c.upstream) expect(r.headers.tracestate).toBe(TRACESTATE);
  });
});
