// OpenTelemetry export (docs/decisions/telemetry.md): with the standard OTLP variables set, a
// tools/call made through the SDK Client with a `traceparent` header reaches a local OTLP/HTTP
// receiver as a span that is a child of the caller's span, with one child span per upstream request
// (the ledger's login and its query) whose ids are the ones the upstream saw in its `traceparent`;
// the gateway's metrics arrive too; and the password, the session token the upstream issued, the
// gateway token, the collector header and an argument value appear nowhere in what was exported.
// With the variables unset, nothing of the OpenTelemetry SDK is loaded.
import { execFile } from 'node:child_process';
import { createServer, request, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { promisify } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../runtime/store/open-store.ts';
import type { PlatformStore } from '../runtime/store/store.ts';
import type { UpstreamPolicy } from '../runtime/handler-api/descriptor-types.ts';
import { parseTraceparent, startTrace } from '../runtime/trace-context.ts';
import type { UpstreamAttempt } from '../runtime/telemetry/call-telemetry.ts';
import { telemetrySignals } from '../runtime/telemetry/telemetry.ts';
import { createUpstreamClient } from '../runtime/upstream/client.ts';
import { LEDGER_DEMO_COMPANY_ID, LEDGER_DEMO_PASSWORD, LEDGER_DEMO_USER } from '../sandbox/ledger/data.ts';
import { startLedgerSandbox, type LedgerSandbox } from '../sandbox/ledger/server.ts';
import {
  connectTenant,
  createTenant,
  resultJson,
  startGateway,
  type StartedGateway,
  type Tenant,
} from './support/gateway.ts';
import { ROOT } from './support/golden.ts';

const TRACE_ID = '5cf92f3577b34da6a3ce929d0e0e4799';
const CALLER_SPAN = '10f067aa0ba902b1';
const ARGUMENT_SECRET = 'Qx7argumentZeb9';
const COLLECTOR_SECRET = 'Kv3collectorWq8';

interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes: Array<{ key: string; value: Record<string, unknown> }>;
  status?: { code?: number };
}

/** A local OTLP/HTTP receiver: keeps every request's path, headers and raw body. */
async function startReceiver(): Promise<{
  url: string;
  received: Array<{ path: string; headers: IncomingHttpHeaders; body: string }>;
  close(): Promise<void>;
}> {
  const received: Array<{ path: string; headers: IncomingHttpHeaders; body: string }> = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    received,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** A proxy in front of the sandbox recording the headers of every upstream request (traceparent, the session token). */
async function startRecordingProxy(
  target: string,
): Promise<{ url: string; seen: IncomingHttpHeaders[]; close(): Promise<void> }> {
  const to = new URL(target);
  const seen: IncomingHttpHeaders[] = [];
  const server: Server = createServer((req, res) => {
    seen.push(req.headers);
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

const attr = (span: OtlpSpan, key: string): unknown => {
  const value = span.attributes.find((a) => a.key === key)?.value;
  return value === undefined
    ? undefined
    : (value.stringValue ?? (value.intValue === undefined ? value.boolValue : Number(value.intValue)));
};

describe('OpenTelemetry export over OTLP/HTTP', () => {
  let store: PlatformStore;
  let sandbox: LedgerSandbox;
  let proxy: Awaited<ReturnType<typeof startRecordingProxy>>;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let gw: StartedGateway;
  let tenant: Tenant;
  let spans: OtlpSpan[] = [];
  let payload = '';

  beforeAll(async () => {
    store = await openStore({});
    sandbox = await startLedgerSandbox({});
    proxy = await startRecordingProxy(sandbox.url);
    receiver = await startReceiver();
    const telemetryEnv = {
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_SERVICE_NAME: 'gateway-under-test',
      OTEL_EXPORTER_OTLP_HEADERS: `x-collector-key=${COLLECTOR_SECRET}`,
    };
    // The OTLP exporters read their variables from the process, as in production.
    Object.assign(process.env, telemetryEnv);
    gw = await startGateway(store, {
      telemetryEnv,
      env: { CONNECTOR_LEDGER_BASE_URL: proxy.url, RATE_LIMIT_BURST: '1000' },
    });
    tenant = await createTenant(store, { subscribe: ['ledger'] });
    await connectTenant(gw, tenant, 'ledger', {
      username: LEDGER_DEMO_USER,
      password: LEDGER_DEMO_PASSWORD,
      companyId: String(LEDGER_DEMO_COMPANY_ID),
    });

    const client = new Client({ name: 'otel-test', version: '1.0.0' });
    const headers = { authorization: `Bearer ${tenant.token}`, traceparent: `00-${TRACE_ID}-${CALLER_SPAN}-01` };
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${gw.url}/ledger/mcp`), { requestInit: { headers } }),
    );
    const result = await client.callTool({ name: 'ledger__list_debtors', arguments: { search: ARGUMENT_SECRET } });
    expect(resultJson(result)).toMatchObject({ items: [] });
    // A refusal is a span too: an argument the schema refuses.
    const refused = await client.callTool({
      name: 'ledger__list_debtors',
      arguments: { limit: `${ARGUMENT_SECRET}-limit` },
    });
    expect(refused.isError).toBe(true);
    await client.close();
    // Closing the gateway flushes the span exporter and makes a last metrics collection.
    await gw.close();
    gw = undefined as unknown as StartedGateway;
    // What was exported (the request bodies; the collector header is meant to be in the headers).
    payload = receiver.received.map((r) => r.body).join('\n');
    spans = receiver.received
      .filter((r) => r.path === '/v1/traces')
      .flatMap(
        (r) =>
          (JSON.parse(r.body) as { resourceSpans: Array<{ scopeSpans: Array<{ spans: OtlpSpan[] }> }> }).resourceSpans,
      )
      .flatMap((rs) => rs.scopeSpans.flatMap((ss) => ss.spans));
  }, 180_000);
  afterAll(async () => {
    for (const name of ['OTEL_EXPORTER_OTLP_ENDPOINT', 'OTEL_SERVICE_NAME', 'OTEL_EXPORTER_OTLP_HEADERS'])
      delete process.env[name];
    await gw?.close();
    await proxy?.close();
    await receiver?.close();
    await sandbox?.close();
    await store?.close();
  });

  it('exports the tools/call span as a child of the caller’s span, with the connector, tool and outcome', () => {
    const calls = spans.filter((s) => attr(s, 'mcp.method.name') === 'tools/call');
    expect(calls).toHaveLength(2);
    const [ok, refused] = calls;
    for (const span of calls)
      expect(span).toMatchObject({ traceId: TRACE_ID, parentSpanId: CALLER_SPAN, kind: 2 /* SERVER */ });
    expect(ok!.name).toBe('tools/call list_debtors');
    expect({
      connector: attr(ok!, 'gateway.connector.id'),
      tool: attr(ok!, 'gen_ai.tool.name'),
      outcome: attr(ok!, 'gateway.call.outcome'),
    }).toEqual({
      connector: 'ledger',
      tool: 'list_debtors',
      outcome: 'ok',
    });
    expect({
      outcome: attr(refused!, 'gateway.call.outcome'),
      reason: attr(refused!, 'gateway.refusal.reason'),
    }).toEqual({ outcome: 'refused', reason: 'invalid_arguments' });
    expect(refused!.status?.code).toBe(2); // ERROR
  });

  it("exports each upstream request as a child of the tools/call span, under its traceparent's span id", () => {
    const call = spans.find((s) => s.name === 'tools/call list_debtors')!;
    const upstream = spans.filter((s) => s.parentSpanId === call.spanId);
    // The ledger's login and its query: both reached the proxy with these span ids.
    expect(upstream.length).toBeGreaterThanOrEqual(2);
    const sent = proxy.seen.map((h) => parseTraceparent(h.traceparent));
    expect(upstream.map((s) => s.spanId).sort()).toEqual(sent.map((p) => p!.parentId).sort());
    for (const p of sent) expect(p!.traceId).toBe(TRACE_ID);
    const port = Number(new URL(proxy.url).port);
    for (const span of upstream) {
      expect(span).toMatchObject({ traceId: TRACE_ID, kind: 3 /* CLIENT */ });
      expect(attr(span, 'http.request.method')).toBe(span.name);
      expect({
        host: attr(span, 'server.address'),
        port: attr(span, 'server.port'),
        status: attr(span, 'http.response.status_code'),
      }).toEqual({ host: '127.0.0.1', port, status: 200 });
      expect(span.attributes.map((a) => a.key).filter((k) => k.startsWith('url.') && k !== 'url.scheme')).toEqual([]);
    }
  });

  it('exports the gateway metrics, under OTEL_SERVICE_NAME and with the collector headers', () => {
    const metrics = receiver.received.filter((r) => r.path === '/v1/metrics');
    expect(metrics.length).toBeGreaterThan(0);
    const body = metrics.map((m) => m.body).join('\n');
    expect(body).toContain('"gateway_tool_calls_total"');
    expect(body).toContain('"gateway_refusals_total"');
    expect(body).toContain('"gateway_upstream_request_duration_seconds"');
    expect(body).toContain('gateway-under-test');
    for (const r of receiver.received) expect(r.headers['x-collector-key']).toBe(COLLECTOR_SECRET);
  });

  it('exports no secret: no password, session token, gateway token, argument or collector header value', () => {
    expect(spans.length).toBeGreaterThan(0);
    const sessionTokens = proxy.seen
      .map((h) => String(h.authorization ?? '').replace(/^\S+\s+/, ''))
      .filter((t) => t.length >= 8);
    expect(sessionTokens.length).toBeGreaterThan(0);
    for (const secret of [LEDGER_DEMO_PASSWORD, tenant.token, ARGUMENT_SECRET, COLLECTOR_SECRET, ...sessionTokens])
      expect(payload).not.toContain(secret);
  });
});

describe('upstream request spans', () => {
  it('reports each request sent, the throttle retry too, under the span id its traceparent carried', async () => {
    const seen: Array<{ url: string; traceparent: string }> = [];
    const server = createServer((req, res) => {
      seen.push({ url: req.url ?? '', traceparent: String(req.headers.traceparent) });
      if (seen.length === 1) res.writeHead(429, { 'retry-after': '0' }).end('{}');
      else res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    try {
      const attempts: UpstreamAttempt[] = [];
      const policy: UpstreamPolicy = {
        name: 'Test',
        baseUrl: `http://127.0.0.1:${port}/api`,
        timeoutMs: 5000,
        retry: { onThrottle: 'once', maxWaitMs: 10, defaultWaitMs: 0 },
        maxResponseBytes: 1024,
      };
      const client = createUpstreamClient({
        policy,
        trace: startTrace(),
        spans: { attempt: (a) => attempts.push(a) },
        sleep: async () => {},
      });
      await client.request({ method: 'GET', path: '/items', query: { q: ARGUMENT_SECRET } });
      expect(seen).toHaveLength(2);
      expect(
        attempts.map((a) => ({ status: a.status, outcome: a.outcome, resend: a.resend, origin: a.origin })),
      ).toEqual([
        { status: 429, outcome: 'throttled', resend: false, origin: `http://127.0.0.1:${port}` },
        { status: 200, outcome: 'ok', resend: true, origin: `http://127.0.0.1:${port}` },
      ]);
      expect(attempts.map((a) => a.spanId)).toEqual(seen.map((r) => parseTraceparent(r.traceparent)!.parentId));
      expect(seen[0]!.url).toContain(ARGUMENT_SECRET); // it went upstream, and into no attempt record
      expect(JSON.stringify(attempts)).not.toContain(ARGUMENT_SECRET);
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});

describe('without the OTLP variables', () => {
  it('asks for no signal (and OTEL_SDK_DISABLED or *_EXPORTER=none switch one off)', () => {
    expect(telemetrySignals({})).toEqual({ traces: false, metrics: false });
    expect(telemetrySignals({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://c/v1/traces' })).toEqual({
      traces: true,
      metrics: false,
    });
    expect(telemetrySignals({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c', OTEL_METRICS_EXPORTER: 'none' })).toEqual({
      traces: true,
      metrics: false,
    });
    expect(telemetrySignals({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c', OTEL_SDK_DISABLED: 'true' })).toEqual({
      traces: false,
      metrics: false,
    });
  });

  /**
   * In a child process: the gateway's whole module graph (bin/gateway.ts loads runtime/app.ts and
   * through it every runtime module), then `startTelemetry` as `createApp` calls it; the
   * @opentelemetry packages resolved meanwhile, by `import` or `require`.
   */
  async function packagesLoaded(env: Record<string, string>): Promise<{ started: boolean; packages: string[] }> {
    const script = `
      import { registerHooks } from 'node:module';
      const seen = new Set();
      registerHooks({
        resolve(specifier, context, next) {
          const r = next(specifier, context);
          const m = /node_modules\\/(@opentelemetry\\/[^/]+)/.exec(r.url);
          if (m) seen.add(m[1]);
          return r;
        },
      });
      await import('./runtime/app.ts');
      const { Metrics, createLogger } = await import('./runtime/operations/observability.ts');
      const { startTelemetry } = await import('./runtime/telemetry/telemetry.ts');
      const telemetry = await startTelemetry(process.env, { metrics: new Metrics(), log: createLogger('silent') });
      await telemetry?.shutdown();
      process.stdout.write(JSON.stringify({ started: telemetry !== undefined, packages: [...seen].sort() }));
    `;
    const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('OTEL_')));
    const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', script], {
      cwd: ROOT,
      env: { ...clean, ...env },
      timeout: 50_000,
    });
    return JSON.parse(stdout) as { started: boolean; packages: string[] };
  }

  it('loads nothing of the OpenTelemetry SDK (only the API prom-client itself requires)', async () => {
    const unset = await packagesLoaded({});
    expect(unset.started).toBe(false);
    expect(unset.packages.filter((p) => p !== '@opentelemetry/api')).toEqual([]);
    // The same start with an endpoint set loads the SDK: the check above can fail.
    const receiver = await startReceiver();
    try {
      const on = await packagesLoaded({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url });
      expect(on.started).toBe(true);
      expect(on.packages).toEqual(
        expect.arrayContaining([
          '@opentelemetry/sdk-trace',
          '@opentelemetry/exporter-trace-otlp-http',
          '@opentelemetry/sdk-metrics',
        ]),
      );
    } finally {
      await receiver.close();
    }
  }, 180_000);
});
