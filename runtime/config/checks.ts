// Checks of the loaded configuration as a whole (combinations the per-setting schemas cannot see),
// the defaults derived from the specs, and how the configuration is described in log lines.
import { join } from 'node:path';
import { ConfigError, type ConnectorSpecs, type GatewayConfig } from './settings.ts';

const WILDCARD_HOSTS = ['0.0.0.0', '::', '[::]'];
/** True when the gateway listens on every interface: its own address is then no link target. */
export const isWildcardHost = (host: string): boolean => WILDCARD_HOSTS.includes(host);

/**
 * Twice the largest response a connector may read (the ledger's 64 MiB: 128 MiB), so two bodies
 * of that size, or many small ones, are read at once; at least the schema's 1 MiB.
 */
export function defaultBodyBudget(specs: ConnectorSpecs): number {
  return Math.max(
    1_048_576,
    2 * Math.max(0, ...Object.values(specs).map((s) => s.descriptor.upstream.maxResponseBytes)),
  );
}

const CONNECTOR_ID = /^[a-z][a-z0-9-]*[a-z0-9]$/;

export function validateConfig(config: GatewayConfig, specs: ConnectorSpecs): void {
  const ids = new Set<string>();
  for (const c of config.connectors) {
    if (!CONNECTOR_ID.test(c.id) || c.id.includes('__'))
      throw new ConfigError(
        `connector id "${c.id}" (${c.key}) must match ${CONNECTOR_ID.source} and must not contain "__"`,
      );
    if (ids.has(c.id)) throw new ConfigError(`connector id "${c.id}" is used twice`);
    ids.add(c.id);
    if (!Number.isInteger(c.maxInstances) || c.maxInstances < 1 || c.maxInstances > 99)
      throw new ConfigError(`${c.key}: maxInstances must be 1 to 99`);
    for (const tool of specs[c.key]?.descriptor.tools ?? []) {
      const full = `${c.id}-${c.maxInstances}__${tool.name}`;
      if (full.length > 64)
        throw new ConfigError(`connector id "${c.id}" makes the tool name ${full} longer than 64 characters`);
    }
    try {
      new URL(c.baseUrl);
    } catch {
      throw new ConfigError(`${c.key}: base URL "${c.baseUrl}" is not a URL`);
    }
  }
  if (config.rateLimit.perSecond <= 0 || config.rateLimit.burst < 1)
    throw new ConfigError('rate limit must be positive');
  try {
    new Intl.DateTimeFormat('en', { timeZone: config.timeZone });
  } catch {
    throw new ConfigError(`time zone "${config.timeZone}" is unknown`);
  }
}

/** A URL for logs: scheme, user, host, port and path — never the password or query. */
export function describeUrl(value: string): string {
  try {
    const url = new URL(value);
    return (
      `${url.protocol}//${url.username ? `${decodeURIComponent(url.username)}@` : ''}${url.host}` +
      `${url.pathname === '/' ? '' : url.pathname}`
    );
  } catch {
    return '(unparsable URL)';
  }
}

/** The platform store in use, for the start-up log line: the embedded path or the PostgreSQL server. */
export function describeStore(config: GatewayConfig): string {
  return config.databaseUrl
    ? `PostgreSQL ${describeUrl(config.databaseUrl)}`
    : `embedded ${join(config.dataDir, 'db')}`;
}
