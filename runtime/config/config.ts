// Deployment configuration: defaults for the embedded single-machine setup, a JSON config file
// (GATEWAY_CONFIG or --config) and environment variables, in that order of precedence (env wins).
// The settings table is config-settings.ts, reading the file and the environment config-sources.ts,
// the checks of combinations config-checks.ts.
import { resolve } from 'node:path';
import { platformDescriptor } from '#generated/platform/descriptor.ts';
import { defaultBodyBudget, isWildcardHost, validateConfig } from './checks.ts';
import { checkConnectorCombinations, checkDeploymentCombinations } from './combinations.ts';
import {
  ConfigError,
  type ConnectorConfig,
  CONNECTOR_SETTINGS,
  DEFAULT_UPSTREAM_CONNECTIONS,
  type ConnectorSpecs,
  type Env,
  envName,
  type GatewayConfig,
  type OAuthClientConfig,
  SETTINGS,
} from './settings.ts';
import { checkConnectorEnv, envValue, get, makeAjv, readSettings } from './sources.ts';

// What the platform modules import from here (their import lines move with them).
export { ConfigError, type GatewayConfig, type OAuthClientConfig };

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
    if (
      typeof dataDir !== 'string' ||
      (databaseUrl !== undefined && typeof databaseUrl !== 'string') ||
      typeof storeTimeoutMs !== 'number'
    )
      return undefined;
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
  const connectors = Object.keys(specs).map((key) => connectorConfig(key, specs, env, fileContent, ajv, enabledList));
  const secretKeys = value<Record<number, string> | undefined>('secretKeys', undefined);
  const [publicBaseUrl, databaseUrl, redisUrl, smtpUrl, mailFrom, redisPrefix] = (
    ['publicBaseUrl', 'databaseUrl', 'redisUrl', 'smtpUrl', 'mailFrom', 'redisPrefix'] as const
  ).map((k) => value<string | undefined>(k, undefined));
  const aloneSettings = checkDeploymentCombinations({ redisUrl, redisPrefix });
  if (aloneSettings) throw new ConfigError(aloneSettings);
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
    ...(smtpUrl ? { smtpUrl } : {}), // SMTP_URL, MAIL_FROM: runtime/mail/mailer.ts
    ...(mailFrom ? { mailFrom } : {}),
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
      ...((envValue(ajv, env, SETTINGS.find((s) => s.file === 'allowedOrigins')!, ['ALLOWED_ORIGINS'], specs) as
        | string[]
        | undefined) ?? []),
      ...((get(fileContent, 'allowedOrigins') as string[] | undefined) ?? []),
    ],
    logLevel: value('logLevel', 'info'),
    logToolCalls: value('logToolCalls', true),
    usageFlushMs: value('usageFlushMs', 1000),
    usageDrainTimeoutMs: value('usageDrainTimeoutMs', 10_000),
    callLogDays: value('callLogDays', 30),
    maxBodyBytes: value('maxBodyBytes', 1024 * 1024),
    snapshotRefreshMs: value('snapshotRefreshMs', 2000),
    storeTimeoutMs: value('storeTimeoutMs', DEFAULT_STORE_TIMEOUT_MS),
    upstreamBodyBudgetBytes: value('upstreamBodyBudgetBytes', defaultBodyBudget(specs)),
    selfService: { purchase: value('selfService.purchase', false), quota: value('selfService.quota', false) },
  };
  validateConfig(config, specs);
  return config;
}

/** One connector's configuration: its settings from the environment and the file, over its spec's defaults. */
function connectorConfig(
  key: string,
  specs: ConnectorSpecs,
  env: Env,
  fileContent: unknown,
  ajv: ReturnType<typeof makeAjv>,
  enabledList: readonly string[],
): ConnectorConfig {
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
    oauth: {
      clientId: setting('oauth.clientId'),
      clientSecret: setting('oauth.clientSecret'),
      baseUrl: setting('oauth.baseUrl'),
    },
  });
  if (alone) throw new ConfigError(alone);
  const managed =
    spec.credential === 'managed_basic'
      ? {
          username: setting('managedCredential.username') as string | undefined,
          password: setting('managedCredential.password') as string | undefined,
        }
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
    throw new ConfigError(
      `${key}: its spec takes no application secret token (CONNECTOR_${envName(key)}_APP_SECRET_TOKEN, ` +
        `connectors.${key}.appSecretToken)`,
    );
  return {
    key,
    id: (setting('id') as string | undefined) ?? spec.defaultId,
    enabled: enabledList.length > 0 ? enabledList.includes(key) : ((fromFile.enabled as boolean | undefined) ?? true),
    baseUrl: (setting('baseUrl') as string | undefined) ?? spec.upstream.baseUrl,
    maxInstances: (setting('maxInstances') as number | undefined) ?? 99,
    ...(concurrent !== undefined ? { maxConcurrent: concurrent } : {}),
    maxConnections: (setting('maxConnections') as number | undefined) ?? DEFAULT_UPSTREAM_CONNECTIONS,
    ...(managed && (managed.username !== undefined || managed.password !== undefined)
      ? { managedCredential: managed }
      : {}),
    ...(spec.credential === 'oauth2' && Object.keys(oauth).length > 0 ? { oauth } : {}),
    ...(appSecret !== undefined ? { appSecret } : {}),
  };
}
