// What a call leaves in V8's young generation, in a process of its own (run by `npm run bench`).
// Objects that outlive a scavenge are copied and, after a second one, promoted to the old
// generation, where only a full collection frees them; per-call objects that do that turned into
// long scavenges and frequent full collections under load (test/bench/profiling-notes.md,
// docs/decisions/performance.md, 'A call's context is a class: no accessor on a per-call object
// literal'). These are GC figures, so they live here and not
// in `npm test`: under a loaded machine the share that survives a scavenge moves with the
// scheduling of the work (the whole-call figure read 0.127 once on a busy machine, 0.0015 quiet).
//
// Two figures, measured with v8.GCProfiler (V8's own before/after sizes of every scavenge):
// - the call context alone: 20,000 contexts, each reaching ~8 KB of its own, used (ctx.log, ctx.text)
//   and dropped. With the object-literal getter it once had, half survived (0.51); as a class 0.2 %.
// - a whole tools/call: HTTP in, the register handler, HTTP upstream out, info logs to a sink;
//   1,000 calls to warm up, then 5,000 measured, one after another, client on node:http (fetch
//   registers response bodies with a FinalizationRegistry, whose targets outlive scavenges).
import http from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import pino from 'pino';
import { platformDescriptor } from '../../generated/platform/descriptor.ts';
import { registerDescriptor } from '../../generated/register/descriptor.ts';
import { createLogger } from '../../runtime/operations/observability.ts';
import { ConnectorTexts, createToolContext } from '../../runtime/pipeline/call-context.ts';
import { noWrites } from '../../runtime/pipeline/write-guard.ts';
import { openStore } from '../../runtime/store/open-store.ts';
import { Redactor } from '../../runtime/redact.ts';
import { companySources, DEMO_CVR } from '../../sandbox/register/data.ts';
import { createTenant, startGateway } from '../support/gateway.ts';
import { youngGeneration } from './lib/young-generation.ts';
import { exitWithParent, onJob, ready } from './servers/ipc.ts';

export interface YoungGenerationResult {
  /** Share of the young generation that survived scavenges while call contexts were made and dropped. */
  readonly contextSurvival: number;
  readonly contextCalls: number;
  /** The same for whole tools/calls through the gateway, and what those scavenges promoted per call. */
  readonly callSurvival: number;
  readonly callPromotedBytesPerCall: number;
  readonly callScavenges: number;
  readonly calls: number;
}

async function contextFigure(calls: number): Promise<number> {
  const texts = new ConnectorTexts(registerDescriptor, platformDescriptor);
  const logger = pino({ level: 'silent' });
  let seen = 0;
  const callPayload = (i: number) => ({ rows: Array.from({ length: 1_000 }, (_, j) => i + j) });
  const { survival } = await youngGeneration(() => {
    for (let i = 0; i < calls; i++) {
      const payload = callPayload(i);
      const ctx = createToolContext({
        connectorId: 'register',
        instanceId: 'register',
        accountId: `acc_${i}`,
        credential: null,
        upstream: { baseUrl: 'http://127.0.0.1:1', request: async () => payload as never },
        limits: {},
        logger,
        logFields: { payload },
        tool: 'soeg_virksomhed',
        signal: new AbortController().signal,
        now: () => new Date(),
        timeZone: 'Europe/Copenhagen',
        tokens: { seal: () => '', open: () => undefined },
        upstreamQuota: { take: async () => true },
        texts,
        redactor: Redactor.of(null),
        write: noWrites,
      });
      ctx.log.debug('one line');
      seen += ctx.describeFailure(new Error(String(payload.rows.length))).message.length;
    }
  });
  if (seen === 0) throw new Error('the call contexts were not used');
  return survival;
}

async function callFigure(
  warmUp: number,
  calls: number,
): Promise<Omit<YoungGenerationResult, 'contextSurvival' | 'contextCalls'>> {
  // The register's search API answering one company, as the bench's zero-latency upstream does.
  const source = companySources.find((s) => s.Vrvirksomhed.cvrNummer === DEMO_CVR)!;
  const answer = Buffer.from(
    JSON.stringify({
      took: 1,
      timed_out: false,
      hits: {
        total: 1,
        max_score: 1,
        hits: [{ _index: 'cvr-permanent-virksomhed', _id: String(DEMO_CVR), _score: 1, _source: source }],
      },
    }),
  );
  const upstream = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': answer.length });
      res.end(answer);
    });
  });
  upstream.listen(0, '127.0.0.1');
  await once(upstream, 'listening');
  const store = await openStore({});
  const gw = await startGateway(store, {
    logger: createLogger('info', { write: () => {} }),
    env: {
      CONNECTOR_REGISTER_BASE_URL: `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`,
      REGISTER_USERNAME: 'gw',
      REGISTER_PASSWORD: 'sandbox-secret',
      RATE_LIMIT_PER_SECOND: '1000000',
      RATE_LIMIT_BURST: '1000000',
    },
  });
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  try {
    const tenant = await createTenant(store, { subscribe: ['register'] });
    await gw.app.context.state.refresh();
    const url = new URL(`${gw.url}/register/mcp`);
    const body = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'register__hent_virksomhed', arguments: { cvrNummer: DEMO_CVR } },
    });
    const call = () =>
      new Promise<string>((done, fail) => {
        const req = http.request(
          {
            agent,
            host: url.hostname,
            port: url.port,
            path: url.pathname,
            method: 'POST',
            headers: {
              authorization: `Bearer ${tenant.token}`,
              'content-type': 'application/json',
              accept: 'application/json, text/event-stream',
              'content-length': Buffer.byteLength(body),
            },
          },
          (res) => {
            const chunks: Buffer[] = [];
            res.on('data', (chunk: Buffer) => chunks.push(chunk));
            res.on('end', () => done(Buffer.concat(chunks).toString('utf8')));
            res.on('error', fail);
          },
        );
        req.on('error', fail);
        req.end(body);
      });
    let answered = 0;
    const run = async (n: number) => {
      for (let i = 0; i < n; i++) if ((await call()).includes('"cvrNummer\\":12345674')) answered++;
    };
    await run(warmUp);
    const young = await youngGeneration(() => run(calls));
    if (answered !== warmUp + calls)
      throw new Error(`${warmUp + calls - answered} of ${warmUp + calls} calls did not answer the company`);
    return {
      callSurvival: young.survival,
      callPromotedBytesPerCall: young.promotedBytes / calls,
      callScavenges: young.scavenges,
      calls,
    };
  } finally {
    agent.destroy();
    await gw.close();
    await store.close();
    upstream.close();
  }
}

export async function measureYoungGeneration(
  options: { contextCalls?: number; warmUp?: number; calls?: number } = {},
): Promise<YoungGenerationResult> {
  const contextCalls = options.contextCalls ?? 20_000;
  const contextSurvival = await contextFigure(contextCalls);
  return { contextSurvival, contextCalls, ...(await callFigure(options.warmUp ?? 1_000, options.calls ?? 5_000)) };
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  onJob(async (job) => measureYoungGeneration({ calls: Number(job['calls'] ?? 5_000) }));
  exitWithParent();
  ready();
}
