// Suites that need PostgreSQL or Redis on a machine without them (a laptop): the probe tells a
// server from a closed or foreign port, the suites are skipped and named one line each with the
// reason, and REQUIRE_SERVICES=1 (.ci/run) fails the run instead. The fake servers here speak just
// enough of each protocol's first exchange; the child vitest runs test/fixtures/skip-lines/.
import { spawn } from 'node:child_process';
import { createServer, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { probe, requiredButMissing } from './support/service-probe.ts';

const ROOT = new URL('..', import.meta.url).pathname;

/** A TCP server that answers its first bytes with `reply` (or closes, or stays silent). */
async function fakeServer(
  reply: string | Buffer | 'close' | 'silent',
): Promise<{ url: (scheme: string) => string; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => {});
    if (reply === 'close') socket.end();
    else if (reply !== 'silent') socket.once('data', () => socket.write(reply));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: (scheme) => `${scheme}://user:pw-Zq8-not-a-word@127.0.0.1:${port}/test`,
    close: () => {
      for (const socket of sockets) socket.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

/** A port nothing listens on: one that was just given out and closed again. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('the probe', () => {
  it('counts a PostgreSQL server by its answer to SSLRequest (N or S)', async () => {
    for (const answer of ['N', 'S']) {
      const pg = await fakeServer(answer);
      try {
        expect(await probe('postgres', pg.url('postgres'))).toBeNull();
      } finally {
        await pg.close();
      }
    }
  });

  it('counts a Redis server by its answer to PING, also one that wants a password', async () => {
    for (const answer of ['+PONG\r\n', '-NOAUTH Authentication required.\r\n']) {
      const redis = await fakeServer(answer);
      try {
        expect(await probe('redis', redis.url('redis'))).toBeNull();
      } finally {
        await redis.close();
      }
    }
  });

  it('tells a closed port, a foreign service, a hang-up and silence apart, never naming the password', async () => {
    const port = await closedPort();
    expect(await probe('postgres', `postgres://u:pw-Zq8-not-a-word@127.0.0.1:${port}/test`)).toBe(
      `PostgreSQL at 127.0.0.1:${port} (TEST_DATABASE_URL) is not reachable (ECONNREFUSED)`,
    );
    const http = await fakeServer('HTTP/1.1 400 Bad Request\r\n\r\n');
    const hangUp = await fakeServer('close');
    const silent = await fakeServer('silent');
    try {
      const foreign = await probe('redis', http.url('redis'));
      expect(foreign).toMatch(/^something answers at 127\.0\.0\.1:\d+, but not as Redis \(TEST_REDIS_URL\)$/);
      expect(await probe('postgres', hangUp.url('postgres'))).toMatch(
        /^PostgreSQL at 127\.0\.0\.1:\d+ \(TEST_DATABASE_URL\) closed the connection without an answer$/,
      );
      expect(await probe('redis', silent.url('redis'), 200)).toMatch(
        /^no answer from Redis at 127\.0\.0\.1:\d+ \(TEST_REDIS_URL\) within 0\.2 s$/,
      );
      expect(foreign).not.toContain('pw-Zq8');
    } finally {
      await Promise.all([http.close(), hangUp.close(), silent.close()]);
    }
  });

  it('fails the run only with REQUIRE_SERVICES=1, naming every missing service', () => {
    const status = {
      postgres: 'PostgreSQL at h:1 (TEST_DATABASE_URL) is not reachable (ECONNREFUSED)',
      redis: 'Redis at h:2 (TEST_REDIS_URL) is not reachable (ECONNREFUSED)',
    };
    expect(requiredButMissing(status, {})).toBeNull();
    expect(requiredButMissing(status, { REQUIRE_SERVICES: '0' })).toBeNull();
    expect(requiredButMissing(status, { REQUIRE_SERVICES: '1' })).toBe(
      `REQUIRE_SERVICES=1, but ${status.postgres}; ${status.redis}`,
    );
    expect(requiredButMissing({ postgres: null, redis: null }, { REQUIRE_SERVICES: '1' })).toBeNull();
  });
});

describe('a run without the servers', () => {
  let pg: Awaited<ReturnType<typeof fakeServer>>;
  let redis: Awaited<ReturnType<typeof fakeServer>>;
  let pgPort: number;
  let redisPort: number;
  beforeAll(async () => {
    [pg, redis, pgPort, redisPort] = await Promise.all([
      fakeServer('N'),
      fakeServer('+PONG\r\n'),
      closedPort(),
      closedPort(),
    ]);
  });
  afterAll(async () => {
    await pg?.close();
    await redis?.close();
  });

  /** The fixture suites in a child vitest with these service addresses (async: the fakes answer from this process). */
  const vitest = (env: Record<string, string>) =>
    new Promise<{ status: number | null; output: string }>((resolve, reject) => {
      const child = spawn(
        process.execPath,
        [join(ROOT, 'node_modules/vitest/vitest.mjs'), 'run', '--config', 'test/fixtures/skip-lines/vitest.config.ts'],
        {
          cwd: ROOT,
          env: { ...process.env, REQUIRE_SERVICES: '', NO_COLOR: '1', FORCE_COLOR: '0', ...env },
          stdio: ['ignore', 'pipe', 'pipe'],
        },
      );
      let output = '';
      child.stdout.on('data', (chunk) => (output += chunk));
      child.stderr.on('data', (chunk) => (output += chunk));
      child.on('error', reject);
      child.on('close', (status) => resolve({ status, output }));
    });
  const missing = () => ({
    TEST_DATABASE_URL: `postgres://postgres@127.0.0.1:${pgPort}/test`,
    TEST_REDIS_URL: `redis://127.0.0.1:${redisPort}`,
  });

  it('runs everything else and names each skipped suite or test with the reason, one line each', async () => {
    const { status, output } = await vitest(missing());
    expect(status, output).toBe(0);
    expect(output).toMatch(/Tests\s+2 passed \| 4 skipped \(6\)/);
    const lines = output.split('\n').filter((line) => line.startsWith('skipped '));
    const noPg = `PostgreSQL at 127.0.0.1:${pgPort} (TEST_DATABASE_URL) is not reachable (ECONNREFUSED)`;
    const noRedis = `Redis at 127.0.0.1:${redisPort} (TEST_REDIS_URL) is not reachable (ECONNREFUSED)`;
    expect(lines).toEqual([
      `skipped needs.fixture.ts › needs PostgreSQL: ${noPg}`,
      `skipped needs.fixture.ts › needs both: ${noPg}; ${noRedis}`,
      `skipped needs.fixture.ts › needs nothing > one test needs Redis: ${noRedis}`,
    ]);
  });

  it('runs them all and names nothing where both servers answer', async () => {
    const { status, output } = await vitest({
      TEST_DATABASE_URL: pg.url('postgres'),
      TEST_REDIS_URL: redis.url('redis'),
    });
    expect(status, output).toBe(0);
    expect(output).toMatch(/Tests\s+6 passed \(6\)/);
    expect(output).not.toMatch(/^skipped /m);
  });

  it('fails with REQUIRE_SERVICES=1 (.ci/run), naming what is missing, and runs nothing', async () => {
    const { status, output } = await vitest({
      ...missing(),
      TEST_DATABASE_URL: pg.url('postgres'),
      REQUIRE_SERVICES: '1',
    });
    expect(status).toBe(1);
    expect(output).toContain(
      `REQUIRE_SERVICES=1, but Redis at 127.0.0.1:${redisPort} (TEST_REDIS_URL) is not reachable (ECONNREFUSED)`,
    );
    expect(output).not.toContain('PostgreSQL at');
    expect(output).not.toMatch(/Tests\s+\d+ passed/);
  });
});
