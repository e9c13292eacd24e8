// Is a PostgreSQL or Redis server there for the suites that need one? One short exchange each
// (PostgreSQL's SSLRequest, Redis's PING), so a port taken by something else does not count.
// Used by test/support/services-setup.ts (vitest globalSetup); no vitest import here.
import { connect } from 'node:net';

export const DATABASE_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
export const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

export type Service = 'postgres' | 'redis';

/** Per service: null when it answered, else why a suite that needs it is skipped (one line). */
export type ServiceStatus = Record<Service, string | null>;

interface ServiceSpec {
  readonly label: string;
  readonly env: string;
  readonly url: string;
  readonly defaultPort: number;
  /** The first bytes a client sends, and whether an answer's first bytes come from the service. */
  readonly hello: Buffer;
  answers(reply: Buffer): boolean;
}

export const SERVICES: Record<Service, ServiceSpec> = {
  postgres: {
    label: 'PostgreSQL',
    env: 'TEST_DATABASE_URL',
    url: DATABASE_URL,
    defaultPort: 5432,
    // SSLRequest: length 8, code 80877103. A server answers one byte: S or N.
    hello: Buffer.from([0, 0, 0, 8, 0x04, 0xd2, 0x16, 0x2f]),
    answers: (reply) => reply[0] === 0x53 || reply[0] === 0x4e,
  },
  redis: {
    label: 'Redis',
    env: 'TEST_REDIS_URL',
    url: REDIS_URL,
    defaultPort: 6379,
    // An inline PING: +PONG, or an error (-NOAUTH …) from a server that wants a password.
    hello: Buffer.from('PING\r\n'),
    answers: (reply) => reply[0] === 0x2b || reply[0] === 0x2d,
  },
};

/** null when the service at `url` answers, else the reason (never the URL's password). */
export function probe(service: Service, url: string, timeoutMs = 2000): Promise<string | null> {
  const spec = SERVICES[service];
  const parsed = new URL(url);
  const host = parsed.hostname.replace(/^\[|\]$/g, '') || 'localhost';
  const port = Number(parsed.port || spec.defaultPort);
  const where = `${spec.label} at ${host}:${port} (${spec.env})`;
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    const done = (reason: string | null) => {
      socket.destroy();
      resolve(reason);
    };
    socket.setTimeout(timeoutMs, () => done(`no answer from ${where} within ${timeoutMs / 1000} s`));
    socket.once('connect', () => socket.write(spec.hello));
    socket.once('data', (reply: Buffer) =>
      done(spec.answers(reply) ? null : `something answers at ${host}:${port}, but not as ${spec.label} (${spec.env})`),
    );
    socket.once('error', (error: NodeJS.ErrnoException) =>
      done(`${where} is not reachable (${error.code ?? error.message})`),
    );
    socket.once('end', () => done(`${where} closed the connection without an answer`));
  });
}

/** Probes every service at once. */
export async function probeAll(timeoutMs?: number): Promise<ServiceStatus> {
  const [postgres, redis] = await Promise.all([
    probe('postgres', DATABASE_URL, timeoutMs),
    probe('redis', REDIS_URL, timeoutMs),
  ]);
  return { postgres, redis };
}

/**
 * The verdict of the global setup: with REQUIRE_SERVICES=1 (set by .ci/run) a missing service
 * fails the run; otherwise its suites are skipped and named.
 */
export function requiredButMissing(status: ServiceStatus, env: NodeJS.ProcessEnv): string | null {
  if (env.REQUIRE_SERVICES !== '1') return null;
  const missing = Object.values(status).filter((reason): reason is string => reason !== null);
  return missing.length ? `REQUIRE_SERVICES=1, but ${missing.join('; ')}` : null;
}
