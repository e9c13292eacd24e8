// Deployment configuration: defaults for the embedded single-machine setup, a JSON config file
// (GATEWAY_CONFIG or --config) and environment variables, in that order of precedence (env wins).
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import type { Ajv, ErrorObject } from 'ajv';
import { platformDescriptor } from '#generated/platform/descriptor.ts';
import { checkConnectorCombinations, checkDeploymentCombinations } from './config-combinations.ts';
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
  /** The OAuth client of an `oauth2` connector (its spec's `oauth` block says the rest). */
  readonly oauth?: OAuthClientConfig;
  /**
   * The integrator's application secret of a connector whose spec says `appSecret: true`, sent
   * beside every tenant's credential (CONNECTOR_<KEY>_APP_SECRET_TOKEN). Never logged or echoed.
   */
  readonly appSecret?: string;
}

/** The deployment's OAuth client registration for one connector. The secret is never logged. */
export interface OAuthClientConfig {
  readonly clientId?: string;
  readonly clientSecret?: string;
  /** Replaces the spec's identity-provider base URLs (authorize and token); the spec's paths follow it. */
  readonly baseUrl?: string;
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
  /** Failed authentications per client address (per process) before tokens not in memory are refused unread. */
  readonly authFailures: { readonly perSecond: number; readonly burst: number };
  readonly fairUse: { readonly defaultQuota: number; readonly storeTimeoutMs: number; readonly seedTimeoutMs: number };
  readonly timeZone: string;
  /** Browser origins allowed to call the MCP endpoints (any request without Origin is allowed). */
  readonly allowedOrigins: readonly string[];
  readonly logLevel: string;
  readonly usageFlushMs: number;
  readonly maxBodyBytes: number;
  /** How often each replica re-reads accounts, tokens and entitlements written elsewhere. */
  readonly snapshotRefreshMs: number;
  /** Deadline of every database query (PostgreSQL and the embedded store). */
  readonly storeTimeoutMs: number;
  /** Bytes of upstream response bodies this process reads and parses at once (all calls together). */
  readonly upstreamBodyBudgetBytes: number;
}

type Env = Readonly<Record<string, string | undefined>>;

/** A connector key as it appears in environment variable names (`CONNECTOR_<KEY>_…`). */
export const envName = (key: string): string => key.toUpperCase().replace(/[^A-Z0-9]/g, '_');

export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

type JsonSchema = Record<string, unknown>;
/** How an environment variable's text becomes the value the schema checks. */
type EnvForm = 'string' | 'number' | 'list' | 'secretKeys';

/**
 * One deployment setting: its key in the config file (a dotted path), its environment variables
 * (the first is the documented name; all win over the file), its JSON Schema and the expected form
 * named in messages. The config file's schema and the environment checks are both made from this.
 */
export interface Setting {
  readonly file?: string;
  readonly env: readonly string[];
  readonly form: EnvForm;
  readonly schema: JsonSchema;
  readonly expected: string;
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];
const HTTP_URL: JsonSchema = { type: 'string', format: 'url', pattern: '^https?://[^/?#]+' };
const MS: JsonSchema = { type: 'integer', minimum: 1, maximum: 86_400_000 };

/** Every deployment-wide setting (the connector settings follow in CONNECTOR_SETTINGS). */
export const SETTINGS: readonly Setting[] = [
  { env: ['GATEWAY_CONFIG'], form: 'string', schema: { type: 'string', minLength: 1 }, expected: 'the path of a JSON config file' },
  { file: 'host', env: ['HOST'], form: 'string', schema: { type: 'string', pattern: '^[A-Za-z0-9.:_-]+$' }, expected: 'a host name or IP address to listen on, such as 127.0.0.1 or 0.0.0.0' },
  { file: 'port', env: ['PORT'], form: 'number', schema: { type: 'integer', minimum: 0, maximum: 65535 }, expected: 'a port number from 0 to 65535' },
  { file: 'publicBaseUrl', env: ['PUBLIC_BASE_URL'], form: 'string', schema: HTTP_URL, expected: 'an http(s) URL such as https://gateway.example.com' },
  { file: 'dataDir', env: ['DATA_DIR'], form: 'string', schema: { type: 'string', minLength: 1 }, expected: 'a directory path' },
  {
    file: 'databaseUrl',
    env: ['DATABASE_URL'],
    form: 'string',
    schema: { type: 'string', format: 'url', pattern: '^postgres(ql)?://[^/?#]+' },
    expected: 'a PostgreSQL URL such as postgres://user:password@host:5432/db',
  },
  { file: 'redisUrl', env: ['REDIS_URL'], form: 'string', schema: { type: 'string', format: 'url', pattern: '^rediss?://[^/?#]+' }, expected: 'a Redis URL such as redis://host:6379' },
  { file: 'redisPrefix', env: ['REDIS_PREFIX'], form: 'string', schema: { type: 'string', pattern: '^[A-Za-z0-9:_.-]{0,64}$' }, expected: 'up to 64 letters, digits, ":", "_", "." or "-"' },
  {
    file: 'secretKeys',
    env: ['GATEWAY_SECRET_KEYS'],
    form: 'secretKeys',
    schema: { type: 'object', minProperties: 1, propertyNames: { pattern: '^[1-9][0-9]{0,5}$' }, additionalProperties: { type: 'string', format: 'secret-key' } },
    expected: 'key versions with 32-byte base64 keys, "2:<base64 key>,1:<base64 key>" (generate one with: openssl rand -base64 32)',
  },
  { env: ['CONNECTORS_ENABLED'], form: 'list', schema: { type: 'array', items: { type: 'string', format: 'connector-key' } }, expected: 'a comma list of connector keys' },
  { file: 'rateLimit.perSecond', env: ['RATE_LIMIT_PER_SECOND'], form: 'number', schema: { type: 'number', exclusiveMinimum: 0 }, expected: 'a positive number of requests per second' },
  { file: 'rateLimit.burst', env: ['RATE_LIMIT_BURST'], form: 'number', schema: { type: 'integer', minimum: 1 }, expected: 'a positive integer' },
  {
    file: 'authFailures.perSecond',
    env: ['AUTH_FAILURES_PER_SECOND'],
    form: 'number',
    schema: { type: 'number', exclusiveMinimum: 0 },
    expected: 'a positive number of failed authentications per second',
  },
  { file: 'authFailures.burst', env: ['AUTH_FAILURE_BURST'], form: 'number', schema: { type: 'integer', minimum: 1 }, expected: 'a positive integer' },
  { file: 'fairUse.defaultQuota', env: ['FAIR_USE_MONTHLY_QUOTA'], form: 'number', schema: { type: 'integer', minimum: 0 }, expected: 'a non-negative integer of calls per month' },
  { file: 'fairUse.storeTimeoutMs', env: ['FAIR_USE_STORE_TIMEOUT_MS'], form: 'number', schema: MS, expected: 'milliseconds, a positive integer' },
  { file: 'fairUse.seedTimeoutMs', env: ['FAIR_USE_SEED_TIMEOUT_MS'], form: 'number', schema: MS, expected: 'milliseconds, a positive integer' },
  { file: 'timeZone', env: ['BILLING_TIME_ZONE'], form: 'string', schema: { type: 'string', format: 'time-zone' }, expected: 'an IANA time zone such as Europe/Copenhagen' },
  {
    file: 'allowedOrigins',
    env: ['ALLOWED_ORIGINS'],
    form: 'list',
    schema: { type: 'array', items: { type: 'string', format: 'url', pattern: '^https?://[^/?#]+$' } },
    expected: 'a comma list of origins such as https://app.example.com',
  },
  { file: 'logLevel', env: ['LOG_LEVEL'], form: 'string', schema: { type: 'string', enum: LOG_LEVELS }, expected: `one of ${LOG_LEVELS.join(', ')}` },
  { file: 'usageFlushMs', env: ['USAGE_FLUSH_MS'], form: 'number', schema: MS, expected: 'milliseconds, a positive integer' },
  { file: 'maxBodyBytes', env: ['MAX_BODY_BYTES'], form: 'number', schema: { type: 'integer', minimum: 1024 }, expected: 'a number of bytes, at least 1024' },
  { file: 'snapshotRefreshMs', env: ['SNAPSHOT_REFRESH_MS'], form: 'number', schema: MS, expected: 'milliseconds, a positive integer' },
  { file: 'storeTimeoutMs', env: ['STORE_TIMEOUT_MS'], form: 'number', schema: MS, expected: 'milliseconds, a positive integer' },
  {
    file: 'upstreamBodyBudgetBytes',
    env: ['UPSTREAM_BODY_BUDGET_BYTES'],
    form: 'number',
    schema: { type: 'integer', minimum: 1_048_576 },
    expected: 'a number of bytes, at least 1048576',
  },
];

/** Per connector: `<KEY>` in the environment names stands for the connector key in capitals. */
export const CONNECTOR_SETTINGS: readonly Setting[] = [
  { file: 'id', env: ['CONNECTOR_<KEY>_ID'], form: 'string', schema: { type: 'string', pattern: '^[a-z][a-z0-9-]*[a-z0-9]$' }, expected: 'a connector id: lower-case letters, digits and "-"' },
  { file: 'enabled', env: [], form: 'string', schema: { type: 'boolean' }, expected: 'true or false' },
  { file: 'baseUrl', env: ['CONNECTOR_<KEY>_BASE_URL', '<KEY>_BASE_URL'], form: 'string', schema: HTTP_URL, expected: 'an http(s) URL' },
  { file: 'maxInstances', env: ['CONNECTOR_<KEY>_MAX_INSTANCES'], form: 'number', schema: { type: 'integer', minimum: 1, maximum: 99 }, expected: 'an integer from 1 to 99' },
  { file: 'maxConcurrent', env: ['CONNECTOR_<KEY>_MAX_CONCURRENT', '<KEY>_MAX_CONCURRENT'], form: 'number', schema: { type: 'integer', minimum: 1 }, expected: 'a positive integer' },
  { file: 'managedCredential.username', env: ['<KEY>_USERNAME'], form: 'string', schema: { type: 'string' }, expected: 'a user name' },
  { file: 'managedCredential.password', env: ['<KEY>_PASSWORD'], form: 'string', schema: { type: 'string' }, expected: 'a password' },
  { file: 'oauth.clientId', env: ['CONNECTOR_<KEY>_OAUTH_CLIENT_ID'], form: 'string', schema: { type: 'string', minLength: 1 }, expected: 'the OAuth client id registered at the identity provider' },
  { file: 'oauth.clientSecret', env: ['CONNECTOR_<KEY>_OAUTH_CLIENT_SECRET'], form: 'string', schema: { type: 'string', minLength: 1 }, expected: 'the OAuth client secret' },
  { file: 'oauth.baseUrl', env: ['CONNECTOR_<KEY>_OAUTH_BASE_URL'], form: 'string', schema: HTTP_URL, expected: 'an http(s) URL (the identity provider base; the spec paths follow it)' },
  {
    file: 'appSecretToken',
    env: ['CONNECTOR_<KEY>_APP_SECRET_TOKEN'],
    form: 'string',
    schema: { type: 'string', minLength: 1, pattern: '^[\\x21-\\x7e]+$' },
    expected: "the integrator's application secret token (printable characters, no spaces), for a connector whose spec declares `appSecret`",
  },
];

/** Edit distance, for "did you mean" hints. */
function distance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let diagonal = row[0]!;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const above = row[j]!;
      row[j] = Math.min(row[j]! + 1, row[j - 1]! + 1, diagonal + (a[i - 1]!.toLowerCase() === b[j - 1]!.toLowerCase() ? 0 : 1));
      diagonal = above;
    }
  }
  return row[b.length]!;
}

/** `did you mean "port"?` for a near miss, else the list of valid names. */
export function suggest(name: string, known: readonly string[]): string {
  const best = [...known].sort((a, b) => distance(name, a) - distance(name, b))[0];
  if (best !== undefined && distance(name, best) <= Math.max(2, Math.floor(best.length / 3))) return `did you mean "${best}"?`;
  return `valid: ${known.join(', ')}`;
}

const ajvs = new WeakMap<ConnectorSpecs, Ajv>();
const require = createRequire(import.meta.url);

/** One validator instance per registry: compiled schemas are cached by it. */
function makeAjv(specs: ConnectorSpecs): Ajv {
  const cached = ajvs.get(specs);
  if (cached) return cached;
  // Required here, not imported: `storeLocation` runs before anything else loads and needs no validator.
  const { Ajv } = require('ajv') as typeof import('ajv');
  const ajv = new Ajv({ allErrors: false, strict: true, validateSchema: false });
  ajv.addFormat('url', (value: string) => URL.canParse(value));
  ajv.addFormat('connector-key', (value: string) => Object.hasOwn(specs, value));
  ajv.addFormat('secret-key', (value: string) => /^[A-Za-z0-9+/_-]+={0,2}$/.test(value) && Buffer.from(value, 'base64').length === 32);
  ajv.addFormat('time-zone', (value: string) => {
    try {
      new Intl.DateTimeFormat('en', { timeZone: value });
      return true;
    } catch {
      return false;
    }
  });
  ajvs.set(specs, ajv);
  return ajv;
}

/** The dotted file paths as nested JSON Schema objects that refuse unknown keys. */
function objectSchema(settings: readonly Setting[], extra: Record<string, JsonSchema> = {}): JsonSchema {
  const properties: Record<string, JsonSchema> = { ...extra };
  const groups = new Map<string, Setting[]>();
  for (const setting of settings) {
    if (!setting.file) continue;
    const [head, ...rest] = setting.file.split('.');
    if (rest.length === 0) properties[head!] = setting.schema;
    else groups.set(head!, [...(groups.get(head!) ?? []), { ...setting, file: rest.join('.') }]);
  }
  for (const [head, group] of groups) properties[head] = objectSchema(group);
  return { type: 'object', properties, additionalProperties: false };
}

/** The JSON Schema of the config file (GATEWAY_CONFIG or --config). */
export function configFileSchema(specs: ConnectorSpecs): JsonSchema {
  const connector = objectSchema(CONNECTOR_SETTINGS);
  return objectSchema(SETTINGS, { connectors: { type: 'object', properties: Object.fromEntries(Object.keys(specs).map((k) => [k, connector])), additionalProperties: false } });
}

function settingAt(path: string): Setting | undefined {
  const parts = path.split('/').filter(Boolean);
  if (parts[0] === 'connectors' && parts.length >= 3) return CONNECTOR_SETTINGS.find((s) => s.file === parts.slice(2).join('.'));
  return SETTINGS.find((s) => s.file === parts.join('.')) ?? SETTINGS.find((s) => s.file && parts.join('.').startsWith(`${s.file}.`));
}

function fileError(error: ErrorObject, specs: ConnectorSpecs, path: string): ConfigError {
  const at = error.instancePath.split('/').filter(Boolean).join('.');
  if (error.keyword === 'additionalProperties') {
    const unknown = String(error.params.additionalProperty);
    const parent = error.instancePath.split('/').filter(Boolean);
    const known =
      parent.length === 0
        ? [...SETTINGS.flatMap((s) => (s.file ? [s.file.split('.')[0]!] : [])), 'connectors']
        : parent[0] === 'connectors' && parent.length === 1
          ? Object.keys(specs)
          : parent[0] === 'connectors'
            ? [...new Set(CONNECTOR_SETTINGS.map((s) => s.file!.split('.').slice(parent.length - 2)[0]!))]
            : SETTINGS.flatMap((s) => (s.file?.startsWith(`${parent.join('.')}.`) ? [s.file.slice(parent.join('.').length + 1)] : []));
    const what = parent[0] === 'connectors' && parent.length === 1 ? 'connector key' : 'setting';
    return new ConfigError(`config file ${path}: unknown ${what} "${[...parent, unknown].join('.')}"; ${suggest(unknown, [...new Set(known)])}`);
  }
  const setting = settingAt(error.instancePath);
  return new ConfigError(`config file ${path}: "${at || '(top level)'}" must be ${setting?.expected ?? error.message ?? 'valid'}${at ? '' : ' (a JSON object)'}`);
}

/** `2:BASE64,1:BASE64` → { 2: 'BASE64', 1: 'BASE64' }; a version given twice is refused. */
export function parseSecretKeys(value: string): Record<number, string> {
  const out: Record<number, string> = {};
  for (const part of value
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean)) {
    const match = /^(\d+):(.+)$/.exec(part);
    if (!match) throw new ConfigError('GATEWAY_SECRET_KEYS must look like "2:<base64 key>,1:<base64 key>"');
    const version = Number(match[1]);
    if (Object.hasOwn(out, version)) throw new ConfigError(`GATEWAY_SECRET_KEYS names key version ${version} twice; each version must be unique`);
    out[version] = match[2]!;
  }
  return out;
}

function fromEnv(setting: Setting, name: string, raw: string): unknown {
  switch (setting.form) {
    case 'number':
      return /^-?\d+(\.\d+)?$/.test(raw.trim()) ? Number(raw) : raw;
    case 'list':
      return raw
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean);
    case 'secretKeys':
      if (!/^\s*\d+:/.test(raw)) throw new ConfigError(`${name} must be ${setting.expected}`);
      return parseSecretKeys(raw);
    default:
      return raw;
  }
}

/** One environment variable in its setting's form, unchecked; undefined when unset or empty. */
function parsedEnvValue(env: Env, setting: Setting, names: readonly string[]): unknown {
  const name = names.find((n) => env[n] !== undefined && env[n] !== '');
  return name ? fromEnv(setting, name, env[name]!) : undefined;
}

/** Checks one environment variable against its setting's schema; undefined when unset or empty. */
function envValue(ajv: Ajv, env: Env, setting: Setting, names: readonly string[], specs: ConnectorSpecs): unknown {
  const name = names.find((n) => env[n] !== undefined && env[n] !== '');
  if (!name) return undefined;
  const raw = env[name]!;
  const value = fromEnv(setting, name, raw);
  const validate = ajv.compile(setting.schema);
  if (!validate(value)) {
    if (name === 'CONNECTORS_ENABLED') {
      const unknown = (value as string[]).find((k) => !Object.hasOwn(specs, k))!;
      throw new ConfigError(`CONNECTORS_ENABLED: unknown connector key "${unknown}"; ${suggest(unknown, Object.keys(specs))}`);
    }
    // The value is not echoed for credentials and keys.
    const shown = setting.form === 'secretKeys' || /_(PASSWORD|SECRET|TOKEN)$/.test(name) ? '' : `, got "${raw}"`;
    throw new ConfigError(`${name} must be ${setting.expected}${shown}`);
  }
  return value;
}

function get(object: unknown, path: string): unknown {
  return path.split('.').reduce<unknown>((o, k) => (o && typeof o === 'object' ? (o as Record<string, unknown>)[k] : undefined), object);
}

/** Environment variables that look like connector settings but name no connector or setting. */
function checkConnectorEnv(env: Env, specs: ConnectorSpecs): void {
  const known = Object.keys(specs).flatMap((key) => CONNECTOR_SETTINGS.flatMap((s) => s.env.filter((n) => n.startsWith('CONNECTOR_')).map((n) => n.replace('<KEY>', envName(key)))));
  for (const name of Object.keys(env)) {
    if (name.startsWith('CONNECTOR_') && !known.includes(name)) throw new ConfigError(`unknown setting ${name}; ${suggest(name, known)}`);
  }
}

const WILDCARD_HOSTS = ['0.0.0.0', '::', '[::]'];
/** True when the gateway listens on every interface: its own address is then no link target. */
export const isWildcardHost = (host: string): boolean => WILDCARD_HOSTS.includes(host);

/**
 * The config file (when there is one) and a reader of deployment-wide settings: the environment
 * wins over the file, the file over the fallback. With `ajv` (loadConfig) the file is checked
 * against its schema and every variable against its setting's; without (storeLocation) values are
 * only parsed.
 */
function readSettings(specs: ConnectorSpecs, env: Env, configPath: string | undefined, ajv?: Ajv) {
  const path = configPath ?? env.GATEWAY_CONFIG;
  let fileContent: Record<string, unknown> = {};
  if (path) {
    let file: unknown;
    const full = resolve(path);
    if (!existsSync(full)) throw new ConfigError(`config file ${full} does not exist`);
    try {
      file = JSON.parse(readFileSync(full, 'utf8'));
    } catch (error) {
      throw new ConfigError(`config file ${full} is not valid JSON: ${(error as Error).message}`);
    }
    if (ajv) {
      const validate = ajv.compile(configFileSchema(specs));
      if (!validate(file)) throw fileError(validate.errors![0]!, specs, full);
    }
    fileContent = file as Record<string, unknown>;
  }
  const value = <T>(file: string, fallback: T): T => {
    const setting = SETTINGS.find((s) => s.file === file)!;
    const fromVariable = ajv ? envValue(ajv, env, setting, setting.env, specs) : parsedEnvValue(env, setting, setting.env);
    return (fromVariable ?? get(fileContent, file) ?? fallback) as T;
  };
  return { fileContent, value };
}

/** The data directory (embedded database, key file) unless DATA_DIR or the config file names another. */
const DEFAULT_DATA_DIR = 'data';
const DEFAULT_STORE_TIMEOUT_MS = 5000;

/** Where the platform store is, read as loadConfig reads it. */
export interface StoreLocation {
  readonly dataDir: string;
  readonly databaseUrl?: string;
  readonly storeTimeoutMs: number;
}

/**
 * The store settings alone, before the connectors are known: bin/gateway.ts starts opening the
 * embedded database with them while the rest loads. Undefined when they cannot be read (a missing
 * or broken config file, a malformed value): loadConfig then reports why.
 */
export function storeLocation(env: Env = process.env, configPath?: string): StoreLocation | undefined {
  try {
    const { value } = readSettings({}, env, configPath);
    const dataDir = value<unknown>('dataDir', DEFAULT_DATA_DIR);
    const databaseUrl = value<unknown>('databaseUrl', undefined);
    const storeTimeoutMs = value<unknown>('storeTimeoutMs', DEFAULT_STORE_TIMEOUT_MS);
    if (typeof dataDir !== 'string' || (databaseUrl !== undefined && typeof databaseUrl !== 'string') || typeof storeTimeoutMs !== 'number') return undefined;
    return { dataDir: resolve(dataDir), ...(databaseUrl ? { databaseUrl } : {}), storeTimeoutMs };
  } catch {
    return undefined;
  }
}

/** Configuration for the connectors in `specs` (every key of the registry), from the file and the environment. */
export function loadConfig(specs: ConnectorSpecs, env: Env = process.env, configPath?: string): GatewayConfig {
  const ajv = makeAjv(specs);
  const { fileContent, value } = readSettings(specs, env, configPath, ajv);
  checkConnectorEnv(env, specs);
  const host = value('host', '127.0.0.1');
  const port = value('port', 8787);
  const enabledSetting = SETTINGS.find((s) => s.env[0] === 'CONNECTORS_ENABLED')!;
  const enabledList = (envValue(ajv, env, enabledSetting, enabledSetting.env, specs) as string[] | undefined) ?? [];
  const connectors = Object.keys(specs).map((key): ConnectorConfig => {
    const spec = specs[key]!.descriptor;
    const fromFile = (get(fileContent, `connectors.${key}`) ?? {}) as Record<string, unknown>;
    const setting = (name: string): unknown => {
      const s = CONNECTOR_SETTINGS.find((c) => c.file === name)!;
      return (
        envValue(
          ajv,
          env,
          s,
          s.env.map((n) => n.replace('<KEY>', envName(key))),
          specs,
        ) ?? get(fromFile, name)
      );
    };
    const concurrent = (setting('maxConcurrent') as number | undefined) ?? spec.limits.maxConcurrent;
    const alone = checkConnectorCombinations({
      key,
      envKey: envName(key),
      credential: spec.credential,
      username: setting('managedCredential.username'),
      password: setting('managedCredential.password'),
      oauth: { clientId: setting('oauth.clientId'), clientSecret: setting('oauth.clientSecret'), baseUrl: setting('oauth.baseUrl') },
    });
    if (alone) throw new ConfigError(alone);
    const managed =
      spec.credential === 'managed_basic'
        ? { username: setting('managedCredential.username') as string | undefined, password: setting('managedCredential.password') as string | undefined }
        : undefined;
    const oauth: OAuthClientConfig = Object.fromEntries(
      (['clientId', 'clientSecret', 'baseUrl'] as const).flatMap((name) => {
        const v = setting(`oauth.${name}`) as string | undefined;
        return v === undefined ? [] : [[name, v.replace(/\/+$/, '')]];
      }),
    );
    const appSecret = setting('appSecretToken') as string | undefined;
    // A secret for a connector that takes none is a mistake (a wrong key, a copy-paste), not a no-op.
    if (appSecret !== undefined && !spec.appSecret)
      throw new ConfigError(`${key}: its spec takes no application secret token (CONNECTOR_${envName(key)}_APP_SECRET_TOKEN, connectors.${key}.appSecretToken)`);
    return {
      key,
      id: (setting('id') as string | undefined) ?? spec.defaultId,
      enabled: enabledList.length > 0 ? enabledList.includes(key) : ((fromFile.enabled as boolean | undefined) ?? true),
      baseUrl: (setting('baseUrl') as string | undefined) ?? spec.upstream.baseUrl,
      maxInstances: (setting('maxInstances') as number | undefined) ?? 99,
      ...(concurrent !== undefined ? { maxConcurrent: concurrent } : {}),
      ...(managed && (managed.username !== undefined || managed.password !== undefined) ? { managedCredential: managed } : {}),
      ...(spec.credential === 'oauth2' && Object.keys(oauth).length > 0 ? { oauth } : {}),
      ...(appSecret !== undefined ? { appSecret } : {}),
    };
  });
  const secretKeys = value<Record<number, string> | undefined>('secretKeys', undefined);
  const publicBaseUrl = value<string | undefined>('publicBaseUrl', undefined);
  const databaseUrl = value<string | undefined>('databaseUrl', undefined);
  const redisUrl = value<string | undefined>('redisUrl', undefined);
  const alone = checkDeploymentCombinations({ redisUrl, redisPrefix: value<string | undefined>('redisPrefix', undefined) });
  if (alone) throw new ConfigError(alone);
  const config: GatewayConfig = {
    host,
    port,
    // Without a public URL, links use the listening address (127.0.0.1 for a wildcard host: see bin/start.mjs).
    publicBaseUrl: (publicBaseUrl ?? `http://${isWildcardHost(host) ? '127.0.0.1' : host}:${port}`).replace(/\/+$/, ''),
    publicBaseUrlExplicit: publicBaseUrl !== undefined,
    dataDir: resolve(value('dataDir', DEFAULT_DATA_DIR)),
    ...(databaseUrl ? { databaseUrl } : {}),
    ...(redisUrl ? { redisUrl } : {}),
    redisPrefix: value('redisPrefix', 'cg:'),
    ...(secretKeys ? { secretKeys } : {}),
    connectors,
    rateLimit: { perSecond: value('rateLimit.perSecond', 10), burst: value('rateLimit.burst', 20) },
    authFailures: { perSecond: value('authFailures.perSecond', 2), burst: value('authFailures.burst', 20) },
    fairUse: {
      defaultQuota: value('fairUse.defaultQuota', platformDescriptor.limits.fairUseDefaultMonthlyQuota),
      storeTimeoutMs: value('fairUse.storeTimeoutMs', 100),
      seedTimeoutMs: value('fairUse.seedTimeoutMs', 2000),
    },
    timeZone: value('timeZone', 'Europe/Copenhagen'),
    allowedOrigins: [
      ...((envValue(ajv, env, SETTINGS.find((s) => s.file === 'allowedOrigins')!, ['ALLOWED_ORIGINS'], specs) as string[] | undefined) ?? []),
      ...((get(fileContent, 'allowedOrigins') as string[] | undefined) ?? []),
    ],
    logLevel: value('logLevel', 'info'),
    usageFlushMs: value('usageFlushMs', 1000),
    maxBodyBytes: value('maxBodyBytes', 1024 * 1024),
    snapshotRefreshMs: value('snapshotRefreshMs', 2000),
    storeTimeoutMs: value('storeTimeoutMs', DEFAULT_STORE_TIMEOUT_MS),
    upstreamBodyBudgetBytes: value('upstreamBodyBudgetBytes', defaultBodyBudget(specs)),
  };
  validateConfig(config, specs);
  return config;
}

/**
 * Twice the largest response a connector may read (the ledger's 64 MiB: 128 MiB), so two bodies
 * of that size, or many small ones, are read at once; at least the schema's 1 MiB.
 */
export function defaultBodyBudget(specs: ConnectorSpecs): number {
  return Math.max(1_048_576, 2 * Math.max(0, ...Object.values(specs).map((s) => s.descriptor.upstream.maxResponseBytes)));
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
