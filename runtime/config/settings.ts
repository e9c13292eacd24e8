// What a deployment can configure: the shape of the loaded configuration and the table of settings
// (config file key, environment variables, JSON Schema, the expected form named in messages), from
// which the config file's schema and the environment checks are both made (config-sources.ts).
import type { ConnectorDescriptor } from '../handler-api/descriptor-types.ts';

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
  /**
   * Open connections to each upstream origin of this connector (undici's per-origin pool; requests
   * beyond them wait for a free connection). Unset: DEFAULT_UPSTREAM_CONNECTIONS.
   */
  readonly maxConnections?: number;
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
  /** SMTP server for mail to people (`smtp://user:pass@host:587`, `smtps://…`); unset: the data directory's outbox. */
  readonly smtpUrl?: string;
  /** The sender of every mail (`Name <address>` or an address); unset: runtime/mail/mailer.ts DEFAULT_MAIL_FROM. */
  readonly mailFrom?: string;
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
  /**
   * The `tool call` info line per tools/call (on by default; the call log in the store records the calls either
   * way): docs/decisions/operations.md, 'Logs are written asynchronously'.
   */
  readonly logToolCalls: boolean;
  readonly usageFlushMs: number;
  /** On a stop, how long to retry the final usage flush before spilling the rest to the data directory. */
  readonly usageDrainTimeoutMs: number;
  /** Days the call log keeps a call (docs/decisions/portal.md, 'The call log keeps no arguments or results'). */
  readonly callLogDays: number;
  readonly maxBodyBytes: number;
  /** How often each replica re-reads accounts, tokens and entitlements written elsewhere. */
  readonly snapshotRefreshMs: number;
  /** Deadline of every database query (PostgreSQL and the embedded store). */
  readonly storeTimeoutMs: number;
  /** Bytes of upstream response bodies this process reads and parses at once (all calls together). */
  readonly upstreamBodyBudgetBytes: number;
  /**
   * What the operator lets account administrators do themselves in the portal (both off unless set;
   * the demo turns both on): subscribe to a connector (`SELF_SERVICE_PURCHASE`) and set their
   * account's fair-use quota (`SELF_SERVICE_QUOTA`). Off, the portal and the platform texts point
   * to the operator instead.
   */
  readonly selfService: { readonly purchase: boolean; readonly quota: boolean };
}

export type Env = Readonly<Record<string, string | undefined>>;

/** A connector key as it appears in environment variable names (`CONNECTOR_<KEY>_…`). */
export const envName = (key: string): string => key.toUpperCase().replace(/[^A-Z0-9]/g, '_');

export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

export type JsonSchema = Record<string, unknown>;
/** How an environment variable's text becomes the value the schema checks. */
type EnvForm = 'string' | 'number' | 'boolean' | 'list' | 'secretKeys';

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
  {
    env: ['GATEWAY_CONFIG'],
    form: 'string',
    schema: { type: 'string', minLength: 1 },
    expected: 'the path of a JSON config file',
  },
  {
    file: 'host',
    env: ['HOST'],
    form: 'string',
    schema: { type: 'string', pattern: '^[A-Za-z0-9.:_-]+$' },
    expected: 'a host name or IP address to listen on, such as 127.0.0.1 or 0.0.0.0',
  },
  {
    file: 'port',
    env: ['PORT'],
    form: 'number',
    schema: { type: 'integer', minimum: 0, maximum: 65535 },
    expected: 'a port number from 0 to 65535',
  },
  {
    file: 'publicBaseUrl',
    env: ['PUBLIC_BASE_URL'],
    form: 'string',
    schema: HTTP_URL,
    expected: 'an http(s) URL such as https://gateway.example.com',
  },
  {
    file: 'dataDir',
    env: ['DATA_DIR'],
    form: 'string',
    schema: { type: 'string', minLength: 1 },
    expected: 'a directory path',
  },
  {
    file: 'databaseUrl',
    env: ['DATABASE_URL'],
    form: 'string',
    schema: { type: 'string', format: 'url', pattern: '^postgres(ql)?://[^/?#]+' },
    expected: 'a PostgreSQL URL such as postgres://user:password@host:5432/db',
  },
  {
    file: 'redisUrl',
    env: ['REDIS_URL'],
    form: 'string',
    schema: { type: 'string', format: 'url', pattern: '^rediss?://[^/?#]+' },
    expected: 'a Redis URL such as redis://host:6379',
  },
  {
    file: 'redisPrefix',
    env: ['REDIS_PREFIX'],
    form: 'string',
    schema: { type: 'string', pattern: '^[A-Za-z0-9:_.-]{0,64}$' },
    expected: 'up to 64 letters, digits, ":", "_", "." or "-"',
  },
  {
    file: 'smtpUrl',
    env: ['SMTP_URL'],
    form: 'string',
    schema: { type: 'string', format: 'url', pattern: '^smtps?://[^/?#]+' },
    expected: 'an SMTP URL such as smtp://user:password@mail.example.com:587 or smtps://…:465',
  },
  {
    file: 'mailFrom',
    env: ['MAIL_FROM'],
    form: 'string',
    schema: { type: 'string', maxLength: 320, pattern: '^([^<>\\r\\n]* <)?[^\\s@<>]+@[^\\s@<>]+>?$' },
    expected: 'a sender address such as gateway@example.com or "Connector gateway <gateway@example.com>"',
  },
  {
    file: 'secretKeys',
    env: ['GATEWAY_SECRET_KEYS'],
    form: 'secretKeys',
    schema: {
      type: 'object',
      minProperties: 1,
      propertyNames: { pattern: '^[1-9][0-9]{0,5}$' },
      additionalProperties: { type: 'string', format: 'secret-key' },
    },
    expected:
      'key versions with 32-byte base64 keys, "2:<base64 key>,1:<base64 key>" (generate one with: openssl rand ' +
      '-base64 32)',
  },
  {
    env: ['CONNECTORS_ENABLED'],
    form: 'list',
    schema: { type: 'array', items: { type: 'string', format: 'connector-key' } },
    expected: 'a comma list of connector keys',
  },
  {
    file: 'rateLimit.perSecond',
    env: ['RATE_LIMIT_PER_SECOND'],
    form: 'number',
    schema: { type: 'number', exclusiveMinimum: 0 },
    expected: 'a positive number of requests per second',
  },
  {
    file: 'rateLimit.burst',
    env: ['RATE_LIMIT_BURST'],
    form: 'number',
    schema: { type: 'integer', minimum: 1 },
    expected: 'a positive integer',
  },
  {
    file: 'authFailures.perSecond',
    env: ['AUTH_FAILURES_PER_SECOND'],
    form: 'number',
    schema: { type: 'number', exclusiveMinimum: 0 },
    expected: 'a positive number of failed authentications per second',
  },
  {
    file: 'authFailures.burst',
    env: ['AUTH_FAILURE_BURST'],
    form: 'number',
    schema: { type: 'integer', minimum: 1 },
    expected: 'a positive integer',
  },
  {
    file: 'fairUse.defaultQuota',
    env: ['FAIR_USE_MONTHLY_QUOTA'],
    form: 'number',
    schema: { type: 'integer', minimum: 0 },
    expected: 'a non-negative integer of calls per month',
  },
  {
    file: 'fairUse.storeTimeoutMs',
    env: ['FAIR_USE_STORE_TIMEOUT_MS'],
    form: 'number',
    schema: MS,
    expected: 'milliseconds, a positive integer',
  },
  {
    file: 'fairUse.seedTimeoutMs',
    env: ['FAIR_USE_SEED_TIMEOUT_MS'],
    form: 'number',
    schema: MS,
    expected: 'milliseconds, a positive integer',
  },
  {
    file: 'timeZone',
    env: ['BILLING_TIME_ZONE'],
    form: 'string',
    schema: { type: 'string', format: 'time-zone' },
    expected: 'an IANA time zone such as Europe/Copenhagen',
  },
  {
    file: 'allowedOrigins',
    env: ['ALLOWED_ORIGINS'],
    form: 'list',
    schema: { type: 'array', items: { type: 'string', format: 'url', pattern: '^https?://[^/?#]+$' } },
    expected: 'a comma list of origins such as https://app.example.com',
  },
  {
    file: 'logLevel',
    env: ['LOG_LEVEL'],
    form: 'string',
    schema: { type: 'string', enum: LOG_LEVELS },
    expected: `one of ${LOG_LEVELS.join(', ')}`,
  },
  {
    file: 'logToolCalls',
    env: ['LOG_TOOL_CALLS'],
    form: 'boolean',
    schema: { type: 'boolean' },
    expected: 'true or false',
  },
  {
    file: 'usageFlushMs',
    env: ['USAGE_FLUSH_MS'],
    form: 'number',
    schema: MS,
    expected: 'milliseconds, a positive integer',
  },
  {
    file: 'usageDrainTimeoutMs',
    env: ['USAGE_DRAIN_TIMEOUT_MS'],
    form: 'number',
    schema: { type: 'integer', minimum: 0 },
    expected: 'milliseconds, 0 or more',
  },
  {
    file: 'callLogDays',
    env: ['CALL_LOG_DAYS'],
    form: 'number',
    schema: { type: 'integer', minimum: 1, maximum: 3660 },
    expected: 'days, an integer from 1 to 3660',
  },
  {
    file: 'maxBodyBytes',
    env: ['MAX_BODY_BYTES'],
    form: 'number',
    schema: { type: 'integer', minimum: 1024 },
    expected: 'a number of bytes, at least 1024',
  },
  {
    file: 'snapshotRefreshMs',
    env: ['SNAPSHOT_REFRESH_MS'],
    form: 'number',
    schema: MS,
    expected: 'milliseconds, a positive integer',
  },
  {
    file: 'storeTimeoutMs',
    env: ['STORE_TIMEOUT_MS'],
    form: 'number',
    schema: MS,
    expected: 'milliseconds, a positive integer',
  },
  {
    file: 'upstreamBodyBudgetBytes',
    env: ['UPSTREAM_BODY_BUDGET_BYTES'],
    form: 'number',
    schema: { type: 'integer', minimum: 1_048_576 },
    expected: 'a number of bytes, at least 1048576',
  },
  {
    file: 'selfService.purchase',
    env: ['SELF_SERVICE_PURCHASE'],
    form: 'boolean',
    schema: { type: 'boolean' },
    expected: 'true or false',
  },
  {
    file: 'selfService.quota',
    env: ['SELF_SERVICE_QUOTA'],
    form: 'boolean',
    schema: { type: 'boolean' },
    expected: 'true or false',
  },
];

/**
 * Connections to one upstream origin when the deployment sets none (docs/decisions/performance.md,
 * 'Connections per upstream origin'): every tenant of a connector shares its origin, so the pool is
 * sized for many slow calls at once (1,000 calls of 2 s answer within two rounds), not for one tenant.
 */
export const DEFAULT_UPSTREAM_CONNECTIONS = 1024;

/** Per connector: `<KEY>` in the environment names stands for the connector key in capitals. */
export const CONNECTOR_SETTINGS: readonly Setting[] = [
  {
    file: 'id',
    env: ['CONNECTOR_<KEY>_ID'],
    form: 'string',
    schema: { type: 'string', pattern: '^[a-z][a-z0-9-]*[a-z0-9]$' },
    expected: 'a connector id: lower-case letters, digits and "-"',
  },
  { file: 'enabled', env: [], form: 'string', schema: { type: 'boolean' }, expected: 'true or false' },
  {
    file: 'baseUrl',
    env: ['CONNECTOR_<KEY>_BASE_URL', '<KEY>_BASE_URL'],
    form: 'string',
    schema: HTTP_URL,
    expected: 'an http(s) URL',
  },
  {
    file: 'maxInstances',
    env: ['CONNECTOR_<KEY>_MAX_INSTANCES'],
    form: 'number',
    schema: { type: 'integer', minimum: 1, maximum: 99 },
    expected: 'an integer from 1 to 99',
  },
  {
    file: 'maxConcurrent',
    env: ['CONNECTOR_<KEY>_MAX_CONCURRENT', '<KEY>_MAX_CONCURRENT'],
    form: 'number',
    schema: { type: 'integer', minimum: 1 },
    expected: 'a positive integer',
  },
  {
    file: 'maxConnections',
    env: ['CONNECTOR_<KEY>_MAX_CONNECTIONS'],
    form: 'number',
    schema: { type: 'integer', minimum: 1, maximum: 65_535 },
    expected: 'an integer from 1 to 65535',
  },
  {
    file: 'managedCredential.username',
    env: ['<KEY>_USERNAME'],
    form: 'string',
    schema: { type: 'string' },
    expected: 'a user name',
  },
  {
    file: 'managedCredential.password',
    env: ['<KEY>_PASSWORD'],
    form: 'string',
    schema: { type: 'string' },
    expected: 'a password',
  },
  {
    file: 'oauth.clientId',
    env: ['CONNECTOR_<KEY>_OAUTH_CLIENT_ID'],
    form: 'string',
    schema: { type: 'string', minLength: 1 },
    expected: 'the OAuth client id registered at the identity provider',
  },
  {
    file: 'oauth.clientSecret',
    env: ['CONNECTOR_<KEY>_OAUTH_CLIENT_SECRET'],
    form: 'string',
    schema: { type: 'string', minLength: 1 },
    expected: 'the OAuth client secret',
  },
  {
    file: 'oauth.baseUrl',
    env: ['CONNECTOR_<KEY>_OAUTH_BASE_URL'],
    form: 'string',
    schema: HTTP_URL,
    expected: 'an http(s) URL (the identity provider base; the spec paths follow it)',
  },
  {
    file: 'appSecretToken',
    env: ['CONNECTOR_<KEY>_APP_SECRET_TOKEN'],
    form: 'string',
    schema: { type: 'string', minLength: 1, pattern: '^[\\x21-\\x7e]+$' },
    expected:
      "the integrator's application secret token (printable characters, no spaces), for a connector whose spec " +
      'declares `appSecret`',
  },
];
