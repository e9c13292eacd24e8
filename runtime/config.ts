// Deployment configuration: defaults for the embedded single-machine setup, a JSON config file
// (GATEWAY_CONFIG or --config) and environment variables, in that order of precedence (env wins).
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { platformDescriptor } from '#generated/platform/descriptor.ts';
import type { ConnectorDescriptor } from './handler-api/descriptor-types.ts';

/** What configuration needs of each connector: its spec (generated/registry.ts holds them all). */
export type ConnectorSpecs = Readonly<Record<string, { readonly descriptor: ConnectorDescriptor }>>;

export interface ConnectorConfig {
  /** Spec file stem (`<key>` of `specs/<key>.yaml`): the key of generated/registry.ts. */
  readonly key: string;
  /** Connector id as served; the spec's default unless the deployment chooses another. */
  readonly id: string;
  readonly enabled: boolean;
  /** Upstream base URL; the spec's production URL unless overridden (sandboxes, proxies). */
  readonly baseUrl: string;
  /** Highest instance number served (`<id>-<n>`), 1 to 99. */
  readonly maxInstances: number;
  /** Calls in flight to this upstream at once (a queue beyond it); the spec's `maxConcurrent`, if any. */
  readonly maxConcurrent?: number;
  /** Deployment-wide credential of a managed connector (`managed_basic`: HTTP Basic). */
  readonly managedCredential?: { readonly username?: string; readonly password?: string };
}

export interface GatewayConfig {
  readonly host: string;
  readonly port: number;
  /** Base of every link the gateway hands out (connect, purchase, team pages). */
  readonly publicBaseUrl: string;
  /** False when the base URL was derived from HOST and PORT: the listening address then wins. */
  readonly publicBaseUrlExplicit: boolean;
  /** Embedded database and key file live here. */
  readonly dataDir: string;
  /** PostgreSQL URL; unset means the embedded database in `dataDir`. */
  readonly databaseUrl?: string;
  /** Redis URL for several replicas (rate limits, fair use, concurrency gates); unset: one process. */
  readonly redisUrl?: string;
  /** Key prefix in the shared store, so several deployments can share one Redis. */
  readonly redisPrefix: string;
  /** Credential encryption keys `{ version: base64 32-byte key }`; the highest version encrypts. */
  readonly secretKeys?: Readonly<Record<number, string>>;
  readonly connectors: readonly ConnectorConfig[];
  readonly rateLimit: { readonly perSecond: number; readonly burst: number };
  readonly fairUse: { readonly defaultQuota: number; readonly storeTimeoutMs: number };
  readonly timeZone: string;
  /** Browser origins allowed to call the MCP endpoints (any request without Origin is allowed). */
  readonly allowedOrigins: readonly string[];
  readonly logLevel: string;
  readonly usageFlushMs: number;
  readonly maxBodyBytes: number;
  /** How often each replica re-reads accounts, tokens and entitlements written elsewhere. */
  readonly snapshotRefreshMs: number;
}

type Env = Readonly<Record<string, string | undefined>>;

/** A connector key as it appears in environment variable names (`CONNECTOR_<KEY>_…`). */
export const envName = (key: string): string => key.toUpperCase().replace(/[^A-Z0-9]/g, '_');

function num(value: string | undefined, fallback: number, name: string): number {
  if (value === undefined || value === '') return fallback;
  const n = Number(value);
  if (!Number.isFinite(n)) throw new ConfigError(`${name} must be a number, got "${value}"`);
  return n;
}

export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

/** `2:BASE64,1:BASE64` → { 2: 'BASE64', 1: 'BASE64' } */
export function parseSecretKeys(value: string): Record<number, string> {
  const out: Record<number, string> = {};
  for (const part of value
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean)) {
    const match = /^(\d+):(.+)$/.exec(part);
    if (!match) throw new ConfigError('GATEWAY_SECRET_KEYS must look like "2:<base64 key>,1:<base64 key>"');
    out[Number(match[1])] = match[2]!;
  }
  return out;
}

interface FileConfig extends Partial<Omit<GatewayConfig, 'connectors'>> {
  connectors?: Record<string, Partial<Omit<ConnectorConfig, 'key'>>>;
}

/** Configuration for the connectors in `specs` (every key of the registry), from the file and the environment. */
export function loadConfig(specs: ConnectorSpecs, env: Env = process.env, configPath?: string): GatewayConfig {
  const path = configPath ?? env.GATEWAY_CONFIG;
  let file: FileConfig = {};
  if (path) {
    const full = resolve(path);
    if (!existsSync(full)) throw new ConfigError(`config file ${full} does not exist`);
    try {
      file = JSON.parse(readFileSync(full, 'utf8')) as FileConfig;
    } catch (error) {
      throw new ConfigError(`config file ${full} is not valid JSON: ${(error as Error).message}`);
    }
  }
  const host = env.HOST ?? file.host ?? '127.0.0.1';
  const port = num(env.PORT, file.port ?? 8787, 'PORT');
  const enabledList = (env.CONNECTORS_ENABLED ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const connectors = Object.keys(specs).map((key): ConnectorConfig => {
    const spec = specs[key]!.descriptor;
    const fromFile = file.connectors?.[key] ?? {};
    const prefix = `CONNECTOR_${envName(key)}_`;
    const managed =
      spec.credential === 'managed_basic'
        ? {
            username: env[`${envName(key)}_USERNAME`] ?? fromFile.managedCredential?.username,
            password: env[`${envName(key)}_PASSWORD`] ?? fromFile.managedCredential?.password,
          }
        : undefined;
    return {
      key,
      id: env[`${prefix}ID`] ?? fromFile.id ?? spec.defaultId,
      enabled: enabledList.length > 0 ? enabledList.includes(key) : (fromFile.enabled ?? true),
      baseUrl: env[`${prefix}BASE_URL`] ?? env[`${envName(key)}_BASE_URL`] ?? fromFile.baseUrl ?? spec.upstream.baseUrl,
      maxInstances: num(env[`${prefix}MAX_INSTANCES`], fromFile.maxInstances ?? 99, `${prefix}MAX_INSTANCES`),
      ...maxConcurrent(env, key, fromFile.maxConcurrent ?? spec.limits.maxConcurrent),
      ...(managed && (managed.username !== undefined || managed.password !== undefined) ? { managedCredential: managed } : {}),
    };
  });
  const secretKeys = env.GATEWAY_SECRET_KEYS ? parseSecretKeys(env.GATEWAY_SECRET_KEYS) : file.secretKeys;
  const config: GatewayConfig = {
    host,
    port,
    publicBaseUrl: (env.PUBLIC_BASE_URL ?? file.publicBaseUrl ?? `http://${host === '0.0.0.0' ? '127.0.0.1' : host}:${port}`).replace(/\/+$/, ''),
    publicBaseUrlExplicit: Boolean(env.PUBLIC_BASE_URL ?? file.publicBaseUrl),
    dataDir: resolve(env.DATA_DIR ?? file.dataDir ?? 'data'),
    ...((env.DATABASE_URL ?? file.databaseUrl) ? { databaseUrl: env.DATABASE_URL ?? file.databaseUrl } : {}),
    ...((env.REDIS_URL ?? file.redisUrl) ? { redisUrl: env.REDIS_URL ?? file.redisUrl } : {}),
    redisPrefix: env.REDIS_PREFIX ?? file.redisPrefix ?? 'cg:',
    ...(secretKeys ? { secretKeys } : {}),
    connectors,
    rateLimit: {
      perSecond: num(env.RATE_LIMIT_PER_SECOND, file.rateLimit?.perSecond ?? 10, 'RATE_LIMIT_PER_SECOND'),
      burst: num(env.RATE_LIMIT_BURST, file.rateLimit?.burst ?? 20, 'RATE_LIMIT_BURST'),
    },
    fairUse: {
      defaultQuota: num(env.FAIR_USE_MONTHLY_QUOTA, file.fairUse?.defaultQuota ?? platformDescriptor.limits.fairUseDefaultMonthlyQuota!, 'FAIR_USE_MONTHLY_QUOTA'),
      storeTimeoutMs: num(env.FAIR_USE_STORE_TIMEOUT_MS, file.fairUse?.storeTimeoutMs ?? 100, 'FAIR_USE_STORE_TIMEOUT_MS'),
    },
    timeZone: env.BILLING_TIME_ZONE ?? file.timeZone ?? 'Europe/Copenhagen',
    allowedOrigins: (env.ALLOWED_ORIGINS ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean)
      .concat(file.allowedOrigins ?? []),
    logLevel: env.LOG_LEVEL ?? file.logLevel ?? 'info',
    usageFlushMs: num(env.USAGE_FLUSH_MS, file.usageFlushMs ?? 1000, 'USAGE_FLUSH_MS'),
    maxBodyBytes: num(env.MAX_BODY_BYTES, file.maxBodyBytes ?? 1024 * 1024, 'MAX_BODY_BYTES'),
    snapshotRefreshMs: num(env.SNAPSHOT_REFRESH_MS, file.snapshotRefreshMs ?? 2000, 'SNAPSHOT_REFRESH_MS'),
  };
  validateConfig(config, specs);
  return config;
}

/**
 * `CONNECTOR_<KEY>_MAX_CONCURRENT`, or `<KEY>_MAX_CONCURRENT` (the short form README documents,
 * DECISIONS §14), else the file or the spec: the same for every connector.
 */
function maxConcurrent(env: Env, key: string, fallback: number | undefined): { maxConcurrent?: number } {
  const name = [`CONNECTOR_${envName(key)}_MAX_CONCURRENT`, `${envName(key)}_MAX_CONCURRENT`].find((n) => env[n] !== undefined && env[n] !== '');
  const value = name ? num(env[name], 0, name) : fallback;
  if (value === undefined) return {};
  if (!Number.isInteger(value) || value < 1) throw new ConfigError(`${name ?? `${key} maxConcurrent`} must be a positive integer, got ${value}`);
  return { maxConcurrent: value };
}

export const CONNECTOR_ID = /^[a-z][a-z0-9-]*[a-z0-9]$/;

export function validateConfig(config: GatewayConfig, specs: ConnectorSpecs): void {
  const ids = new Set<string>();
  for (const c of config.connectors) {
    if (!CONNECTOR_ID.test(c.id) || c.id.includes('__')) throw new ConfigError(`connector id "${c.id}" (${c.key}) must match ${CONNECTOR_ID.source} and must not contain "__"`);
    if (ids.has(c.id)) throw new ConfigError(`connector id "${c.id}" is used twice`);
    ids.add(c.id);
    if (!Number.isInteger(c.maxInstances) || c.maxInstances < 1 || c.maxInstances > 99) throw new ConfigError(`${c.key}: maxInstances must be 1 to 99`);
    for (const tool of specs[c.key]?.descriptor.tools ?? []) {
      const full = `${c.id}-${c.maxInstances}__${tool.name}`;
      if (full.length > 64) throw new ConfigError(`connector id "${c.id}" makes the tool name ${full} longer than 64 characters`);
    }
    try {
      new URL(c.baseUrl);
    } catch {
      throw new ConfigError(`${c.key}: base URL "${c.baseUrl}" is not a URL`);
    }
  }
  if (config.rateLimit.perSecond <= 0 || config.rateLimit.burst < 1) throw new ConfigError('rate limit must be positive');
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
    return `${url.protocol}//${url.username ? `${decodeURIComponent(url.username)}@` : ''}${url.host}${url.pathname === '/' ? '' : url.pathname}`;
  } catch {
    return '(unparsable URL)';
  }
}

/** The platform store in use, for the start-up log line: the embedded path or the PostgreSQL server. */
export function describeStore(config: GatewayConfig): string {
  return config.databaseUrl ? `PostgreSQL ${describeUrl(config.databaseUrl)}` : `embedded ${join(config.dataDir, 'db')}`;
}
