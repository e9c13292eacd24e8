// A tools/call that must write to the platform database (a connect link) while that database refuses
// connections or hangs answers a tool result, never a protocol error (docs/decisions/mcp-surface.md, 'Store faults on
// tools/call answer a tool result'): the
// not-connected text without its link (`not_connected_no_link`), connect_account the generic text,
// a reconnect text without its instruction. The store is opened with no query deadline of its own,
// so only the gateway's store deadline (`storeTimeoutMs`) can end the wait on a hanging database:
// without it the hanging case never answers. And every JSON-RPC error the gateway answers after
// parsing the body echoes the request id; a fault's log line names account, connector and tool.
import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { casesDescriptor } from '../generated/cases/descriptor.ts';
import { platformDescriptor } from '../generated/platform/descriptor.ts';
import { formatText } from '../runtime/handler-api/tool-error.ts';
import { protocolText } from '../runtime/protocol-text.ts';
import { Pipeline } from '../runtime/pipeline/pipeline.ts';
import { createLogger } from '../runtime/operations/observability.ts';
import { openStore } from '../runtime/store/open-store.ts';
import { createPostgresClient, type SqlClient } from '../runtime/store/sql-client.ts';
import type { PlatformStore } from '../runtime/store/store.ts';
import { startCasesSandbox, type CasesSandbox } from '../sandbox/cases/server.ts';
import {
  connectTenant,
  createTenant,
  failureText,
  rpc,
  startGateway,
  type StartedGateway,
  type Tenant,
} from './support/gateway.ts';
import { DATABASE_URL, needs } from './support/services.ts';
import { startTcpProxy, type TcpProxy } from './support/tcp-proxy.ts';

/** The gateway's store deadline in these tests (the store itself waits without limit). */
const STORE_TIMEOUT_MS = 300;

type LogLine = Record<string, unknown>;

function logSink(): { lines: LogLine[]; logger: ReturnType<typeof createLogger> } {
  const lines: LogLine[] = [];
  const destination = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line) as LogLine);
      done();
    },
  });
  return { lines, logger: createLogger('info', destination) };
}

type RpcBody = {
  jsonrpc: string;
  id: unknown;
  result?: { isError?: boolean; content: unknown[] };
  error?: { code: number; message: string };
};

const callBody = (id: string | number, name: string, args: Record<string, unknown> = {}) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name, arguments: args },
});

describe('tools/call while the platform database is away', needs('postgres'), () => {
  const schema = `fault_answers_${randomBytes(6).toString('hex')}`;
  let admin: SqlClient;
  let direct: PlatformStore;
  let cases: CasesSandbox;
  const proxies: TcpProxy[] = [];
  const stores: PlatformStore[] = [];
  const gateways: StartedGateway[] = [];

  beforeAll(async () => {
    admin = createPostgresClient({ connectionString: DATABASE_URL, max: 1 });
    await admin.exec(`CREATE SCHEMA ${schema}`);
    direct = await openStore({ databaseUrl: DATABASE_URL, schema });
    cases = await startCasesSandbox({ rateLimitPerMinute: 6000 });
  });
  afterAll(async () => {
    // Whatever still waits on a hanging connection gets an error, so every pool can end.
    for (const p of proxies) {
      p.setMode('refuse');
      p.drop();
    }
    for (const g of gateways) await g.close().catch(() => {});
    for (const s of stores) await s.close().catch(() => {});
    for (const p of proxies) await p.close().catch(() => {});
    await direct?.close();
    await admin?.exec(`DROP SCHEMA ${schema} CASCADE`);
    await admin?.close();
    await cases?.close();
  });

  /** A gateway whose store reaches PostgreSQL through a proxy the test cuts; its tenants are in its snapshot. */
  async function gatewayOverProxy(): Promise<{
    gw: StartedGateway;
    pg: TcpProxy;
    lines: LogLine[];
    fresh: Tenant;
    rejected: Tenant;
  }> {
    const pg = await startTcpProxy('127.0.0.1', Number(new URL(DATABASE_URL).port || 5432));
    proxies.push(pg);
    const store = await openStore({ databaseUrl: pg.url(DATABASE_URL), schema, queryTimeoutMs: 0 });
    stores.push(store);
    const { lines, logger } = logSink();
    const gw = await startGateway(store, {
      logger,
      storeTimeoutMs: STORE_TIMEOUT_MS,
      env: {
        CONNECTOR_CASES_BASE_URL: cases.url,
        RATE_LIMIT_BURST: '1000',
        SNAPSHOT_REFRESH_MS: '600000',
        USAGE_FLUSH_MS: '600000',
      },
    });
    gateways.push(gw);
    // Subscribed and seated; one not connected, one connected with a key the upstream rejects.
    const fresh = await createTenant(direct, { subscribe: ['cases'] });
    const rejected = await createTenant(direct, { subscribe: ['cases'] });
    await connectTenant(gw, rejected, 'cases', { apiKey: 'rejected-by-the-sandbox-8Tq' });
    await gw.app.context.state.refresh();
    return { gw, pg, lines, fresh, rejected };
  }

  /** What a not-connected call must answer: one text block, the no-link variant, the request's id, HTTP 200. */
  async function expectNotConnectedWithoutLink(gw: StartedGateway, tenant: Tenant, id: string): Promise<void> {
    const answer = await rpc(gw.url, 'cases', tenant.token, callBody(id, 'cases__list_cases'));
    expect(answer.status, answer.text).toBe(200);
    const body = answer.json as RpcBody;
    expect(body.id).toBe(id);
    expect(body.error).toBeUndefined();
    expect(failureText(body.result)).toBe(
      formatText(platformDescriptor.errors.not_connected_no_link!.text, { instance_id: 'cases' }),
    );
  }

  /** The log line of a link that could not be stored names the account, the connector instance and the tool. */
  function expectLinkFaultLogged(lines: LogLine[], tenant: Tenant, tool: string): void {
    const line = lines.find(
      (l) =>
        l.msg === 'link could not be made; answering without it' &&
        l.accountId === tenant.account.id &&
        l.tool === tool,
    );
    expect(line, JSON.stringify(lines.slice(-5))).toMatchObject({
      level: 40,
      connector: 'cases',
      instance: 'cases',
      userId: tenant.user.id,
      purpose: 'connect',
    });
  }

  it('refusing connections: no-link texts, connect_account generic, unmetered, no upstream request', async () => {
    const { gw, pg, lines, fresh, rejected } = await gatewayOverProxy();
    // The database's port closes: every new connection is refused, the open ones are gone.
    await pg.close();
    const before = cases.stats.requests;

    await expectNotConnectedWithoutLink(gw, fresh, 'call-1');
    expectLinkFaultLogged(lines, fresh, 'list_cases');
    const connect = (await rpc(gw.url, 'cases', fresh.token, callBody(2, 'connect_account'))).json as RpcBody;
    expect(connect.id).toBe(2);
    expect(failureText(connect.result)).toBe(platformDescriptor.errors.generic!.text);
    expectLinkFaultLogged(lines, fresh, 'connect_account');
    // Refusals: nothing metered (not even in memory, waiting for the database), nothing sent upstream.
    expect(gw.app.context.meter.backlog()).toEqual({ rows: 0, calls: 0 });
    expect(cases.stats.requests).toBe(before);

    // A reconnect text whose link cannot be stored: the spec's text alone, one block.
    const refusedKey = (await rpc(gw.url, 'cases', rejected.token, callBody('call-3', 'cases__list_cases')))
      .json as RpcBody;
    expect(refusedKey.id).toBe('call-3');
    expect(failureText(refusedKey.result)).toBe(
      formatText(casesDescriptor.errors.key_rejected.text, { upstream: 'Ordrestyring' }),
    );
    expectLinkFaultLogged(lines, rejected, 'list_cases');
  });

  it('hanging (never answers): a not-connected call gets the no-link text once the store deadline passes', async () => {
    const { gw, pg, lines, fresh } = await gatewayOverProxy();
    pg.setMode('hang');
    pg.drop();
    // The store has no deadline of its own here: only the gateway's bounds the wait.
    await expectNotConnectedWithoutLink(gw, fresh, 'hang-1');
    expectLinkFaultLogged(lines, fresh, 'list_cases');
    expect(lines.find((l) => l.msg === 'link could not be made; answering without it')?.err).toMatchObject({
      name: 'StoreTimeoutError',
    });
    expect(gw.app.context.meter.backlog()).toEqual({ rows: 0, calls: 0 });
  });
});

describe('a fault while answering a JSON-RPC request', () => {
  let store: PlatformStore;
  let gw: StartedGateway;
  let lines: LogLine[];
  let tenant: Tenant;
  let upstreamRequests = 0;
  let upstream: import('node:http').Server;

  beforeAll(async () => {
    const { createServer } = await import('node:http');
    upstream = createServer((req, res) => {
      upstreamRequests++;
      req.resume();
      res.writeHead(500).end();
    });
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
    store = await openStore({});
    const sink = logSink();
    lines = sink.lines;
    const port = (upstream.address() as { port: number }).port;
    gw = await startGateway(store, {
      logger: sink.logger,
      env: { CONNECTOR_CASES_BASE_URL: `http://127.0.0.1:${port}/graphql`, RATE_LIMIT_BURST: '1000' },
    });
    tenant = await createTenant(store, { subscribe: ['cases'] });
    await connectTenant(gw, tenant, 'cases', { apiKey: 'fault-test-key-3Lp' });
  }, 60_000);
  afterAll(async () => {
    vi.restoreAllMocks();
    await gw?.close();
    await store?.close();
    await new Promise((resolve) => upstream?.close(resolve));
  });

  it('each refusal whose link cannot be made answers its no-link variant; connect_account generic text', async () => {
    // The gateway's own pipeline, with a link issuer that always fails (purchase, team and terms
    // links are signed, not stored: only this way can they fail).
    const pipeline = new Pipeline(gw.app.context, {
      issue: () => Promise.reject(new Error('links unavailable (test)')),
    });
    const endpoint = gw.app.context.endpoints.get('cases')!;
    const unsubscribed = await createTenant(store, { subscribe: [] });
    const seatless = await createTenant(store, { accountId: tenant.account.id, seats: [] });
    const fresh = await createTenant(store, { subscribe: ['cases'] });
    const termsPending = await createTenant(store, { subscribe: ['cases'], terms: false });
    await gw.app.context.state.refresh();
    // The identity as the snapshot gives it (createTenant's user was read before the terms were accepted).
    const ask = (t: Tenant, name: string) =>
      pipeline.call({
        endpoint,
        identity: {
          account: t.account,
          user: { ...t.user, termsAcceptedAt: t === termsPending ? null : new Date() },
          tokenId: 'test',
          scope: null,
        },
        name,
        rawArgs: {},
        signal: new AbortController().signal,
        reqId: 'req-test',
      });
    const errors = platformDescriptor.errors;
    expect(failureText(await ask(unsubscribed, 'cases__list_cases'))).toBe(
      formatText(errors.not_subscribed_no_link!.text, { connector_id: 'cases' }),
    );
    expect(failureText(await ask(seatless, 'cases__list_cases'))).toBe(
      formatText(errors.no_seat_no_link!.text, { connector_id: 'cases' }),
    );
    expect(failureText(await ask(fresh, 'cases__list_cases'))).toBe(
      formatText(errors.not_connected_no_link!.text, { instance_id: 'cases' }),
    );
    expect(failureText(await ask(termsPending, 'connect_account'))).toBe(
      formatText(errors.connect_terms_required_no_link!.text, { connector_id: 'cases' }),
    );
    expect(failureText(await ask(fresh, 'connect_account'))).toBe(errors.generic!.text);
    expect(upstreamRequests).toBe(0);
    const purposes = lines
      .filter((l) => l.msg === 'link could not be made; answering without it')
      .map((l) => `${String(l.accountId)} ${String(l.tool)} ${String(l.purpose)}`);
    expect(purposes).toEqual([
      `${unsubscribed.account.id} list_cases purchase`,
      `${tenant.account.id} list_cases team`,
      `${fresh.account.id} list_cases connect`,
      `${termsPending.account.id} connect_account terms`,
      `${fresh.account.id} connect_account connect`,
    ]);
  });

  it('an internal error echoes the request id (500, -32603); its log names account, instance, method', async () => {
    const spy = vi.spyOn(gw.app.context.state, 'isSubscribed').mockImplementation(() => {
      throw new Error('snapshot unavailable (test)');
    });
    try {
      for (const id of ['list-7', 8]) {
        const answer = await rpc(gw.url, 'cases', tenant.token, { jsonrpc: '2.0', id, method: 'tools/list' });
        expect(answer.status).toBe(500);
        expect(answer.json).toEqual({
          jsonrpc: '2.0',
          id,
          error: { code: -32603, message: protocolText('internal_error') },
        });
      }
    } finally {
      spy.mockRestore();
    }
    const line = lines.find((l) => l.msg === 'request failed' && l.method === 'tools/list');
    expect(line).toMatchObject({
      level: 50,
      accountId: tenant.account.id,
      connector: 'cases',
      instance: 'cases',
      err: { message: 'snapshot unavailable (test)' },
    });
  });

  it('a tools/call fault: generic text with the request id, unmetered, no request, logged with context', async () => {
    const meteredBefore = gw.app.context.meter.backlog();
    const spy = vi.spyOn(gw.app.context.state, 'isSubscribed').mockImplementation(() => {
      throw new Error('snapshot unavailable (test)');
    });
    let answer: Awaited<ReturnType<typeof rpc>>;
    try {
      answer = await rpc(gw.url, 'cases', tenant.token, callBody('call-9', 'cases__list_cases'));
    } finally {
      spy.mockRestore();
    }
    expect(answer.status).toBe(200);
    const body = answer.json as RpcBody;
    expect(body.id).toBe('call-9');
    expect(failureText(body.result)).toBe(platformDescriptor.errors.generic!.text);
    expect(upstreamRequests).toBe(0);
    expect(gw.app.context.meter.backlog()).toEqual(meteredBefore);
    const line = lines.find((l) => l.msg === 'tool call failed; answering the generic text');
    expect(line).toMatchObject({
      level: 50,
      accountId: tenant.account.id,
      connector: 'cases',
      instance: 'cases',
      tool: 'list_cases',
      err: { message: 'snapshot unavailable (test)' },
    });
  });
});
