// The configuration of a benchmarked gateway, shared by the gateway child and the start-up figure
// (which starts `bin/start.mjs` itself).

export const BENCH_SECRET_KEYS = `1:${Buffer.alloc(32, 11).toString('base64')}`;

/** The environment of a benchmarked gateway (also used for the `bin/start.mjs` start-up figure). */
export function gatewayEnv(options: {
  upstream: string;
  dataDir: string;
  logLevel: string;
  port?: number;
}): Record<string, string> {
  return {
    HOST: '127.0.0.1',
    PORT: String(options.port ?? 0),
    DATA_DIR: options.dataDir,
    LOG_LEVEL: options.logLevel,
    GATEWAY_SECRET_KEYS: BENCH_SECRET_KEYS,
    CONNECTOR_REGISTER_BASE_URL: options.upstream,
    REGISTER_USERNAME: 'bench',
    REGISTER_PASSWORD: 'bench-secret',
    // On, with thresholds above the offered load: every request still takes a token from its bucket
    // and every register call still passes the concurrency gate.
    RATE_LIMIT_PER_SECOND: '1000000',
    RATE_LIMIT_BURST: '1000000',
    REGISTER_MAX_CONCURRENT: '256',
  };
}
