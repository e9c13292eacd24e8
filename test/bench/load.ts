// The load generator, a process of its own. Two kinds of job:
//   closed  autocannon with a fixed number of keep-alive connections, each sending its next request
//           when the previous answered (throughput at a given concurrency). A fixed request count
//           (`amount`) rather than a duration, so no request is left in flight when it stops and the
//           gateway's metering can be compared with the count of successful calls exactly.
//   rate    an open-loop undici generator sending at a fixed rate (evenly spaced, not in bursts),
//           for latency at a fixed load; it waits for every response before reporting.
// Requests cycle through the given caller tokens. A call counts as successful when the answer is
// HTTP 2xx and a JSON-RPC result that is not a tool error. Latency is measured per response in
// fractional milliseconds.
import autocannon from 'autocannon';
import { Pool } from 'undici';
import { post } from './lib/post.ts';
import { Sample, type LatencySummary } from './lib/stats.ts';
import { isSuccess } from './lib/success.ts';
import { exitWithParent, onJob, ready, type Job } from './servers/ipc.ts';

export interface LoadJob {
  readonly kind: 'closed' | 'rate';
  readonly url: string;
  readonly path: string;
  readonly body: string;
  readonly tokens: readonly string[];
  /**
   * Every request with its own JSON-RPC id (the body's `"id":1` replaced by a counter): needed where
   * requests share an MCP session, whose transport routes each answer by its request id.
   */
  readonly uniqueIds?: boolean;
  /** More headers per request, cycled with the tokens (an MCP session id per simulated client). */
  readonly headerSets?: readonly Readonly<Record<string, string>>[];
  readonly connections: number;
  /** closed: requests to send in all. */
  readonly amount?: number;
  /** rate: calls per second, and for how long. */
  readonly rate?: number;
  readonly durationSec?: number;
}

export interface LoadResult {
  readonly sent: number;
  readonly ok: number;
  readonly failed: number;
  readonly transportErrors: number;
  readonly seconds: number;
  /** Successful calls per second. */
  readonly rps: number;
  readonly latency: LatencySummary;
  readonly firstFailure?: string;
}

let nextId = 1;
/** The request body: the job's, or with a fresh id each time (`uniqueIds`). */
function bodyMaker(job: LoadJob): () => string {
  if (!job.uniqueIds) return () => job.body;
  const at = job.body.indexOf('"id":1,');
  if (at < 0) throw new Error('uniqueIds needs a body with "id":1,');
  const head = job.body.slice(0, at + 5);
  const tail = job.body.slice(at + 6);
  return () => `${head}${++nextId}${tail}`;
}

function headersFor(token: string | undefined): Record<string, string> {
  return {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    ...(token ? { authorization: `Bearer ${token}` } : {}),
  };
}

/** Each request's headers: the tokens and the extra header sets cycled together. */
function requestHeaders(job: LoadJob): Record<string, string>[] {
  const tokens = job.tokens.length > 0 ? job.tokens : [undefined];
  const extra = job.headerSets && job.headerSets.length > 0 ? job.headerSets : [{}];
  return Array.from({ length: Math.max(tokens.length, extra.length) }, (_, i) => ({
    ...headersFor(tokens[i % tokens.length]),
    ...extra[i % extra.length],
  }));
}

function closed(job: LoadJob): Promise<LoadResult> {
  return new Promise((resolve, reject) => {
    const latency = new Sample();
    let ok = 0;
    let failed = 0;
    let firstFailure: string | undefined;
    const onResponse = (status: number, body: string) => {
      if (isSuccess(status, body)) ok++;
      else {
        failed++;
        firstFailure ??= `HTTP ${status}: ${body.slice(0, 300)}`;
      }
    };
    const body = bodyMaker(job);
    const requests = requestHeaders(job).map((headers) => ({
      method: 'POST',
      path: job.path,
      headers,
      body: job.body,
      ...(job.uniqueIds ? { setupRequest: (request: object) => ({ ...request, body: body() }) } : {}),
      onResponse,
    }));
    const amount = Math.max(job.amount ?? 1000, job.connections);
    let startedAt = 0;
    let lastAt = 0;
    const instance = autocannon(
      { url: job.url, connections: job.connections, amount, pipelining: 1, timeout: 30, sampleInt: 100, requests },
      (error, result) => {
        if (error) return reject(error);
        const seconds = (lastAt - startedAt) / 1000;
        resolve({
          sent: amount,
          ok,
          failed,
          transportErrors: result.errors,
          seconds,
          rps: seconds > 0 ? ok / seconds : 0,
          latency: latency.summary(),
          ...(firstFailure ? { firstFailure } : {}),
        });
      },
    );
    startedAt = performance.now();
    instance.on('response', (_client: unknown, _status: number, _bytes: number, ms: number) => {
      latency.push(ms);
      lastAt = performance.now();
    });
  });
}

async function rate(job: LoadJob): Promise<LoadResult> {
  const pool = new Pool(job.url, { connections: job.connections, pipelining: 1, keepAliveTimeout: 30_000 });
  const latency = new Sample();
  const perSecond = job.rate ?? 1000;
  const total = Math.round(perSecond * (job.durationSec ?? 5));
  const headerSets = requestHeaders(job);
  const body = bodyMaker(job);
  let ok = 0;
  let failed = 0;
  let transportErrors = 0;
  let firstFailure: string | undefined;
  let sent = 0;
  let pending = 0;
  const interval = 1000 / perSecond;
  const start = performance.now();
  let lastAt = start;
  await new Promise<void>((resolve) => {
    const fire = () => {
      const headers = headerSets[sent % headerSets.length]!;
      sent++;
      pending++;
      const t0 = performance.now();
      post(pool, job.path, headers, body())
        .then(({ status, text }) => {
          lastAt = performance.now();
          latency.push(lastAt - t0);
          if (isSuccess(status, text)) ok++;
          else {
            failed++;
            firstFailure ??= `HTTP ${status}: ${text.slice(0, 300)}`;
          }
        })
        .catch((error: unknown) => {
          transportErrors++;
          firstFailure ??= (error as Error).message;
        })
        .finally(() => {
          pending--;
          if (sent === total && pending === 0) resolve();
        });
    };
    const tick = () => {
      const due = Math.min(total, Math.floor((performance.now() - start) / interval) + 1);
      while (sent < due) fire();
      if (sent < total) setTimeout(tick, Math.max(0, start + sent * interval - performance.now()));
    };
    tick();
  });
  await pool.close();
  const seconds = (lastAt - start) / 1000;
  return {
    sent,
    ok,
    failed,
    transportErrors,
    seconds,
    rps: seconds > 0 ? ok / seconds : 0,
    latency: latency.summary(),
    ...(firstFailure ? { firstFailure } : {}),
  };
}

onJob(async (job: Job) => {
  const load = job['load'] as LoadJob;
  return load.kind === 'rate' ? rate(load) : closed(load);
});
exitWithParent();
ready();
