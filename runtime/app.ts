// Builds a running gateway from configuration: store, vault, in-memory platform state, metering,
// limits, endpoints, the tools/call pipeline, the MCP methods, portal and HTTP server. `close()`
// shuts down gracefully: no new connections, in-flight calls finish, usage is flushed.
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import { platformDescriptor } from '#generated/platform/descriptor.ts';
import { describeUrl } from './config/checks.ts';
import { ConfigError, type GatewayConfig } from './config/settings.ts';
import { createAuthorizationServer } from './auth/authorization-server.ts';
import type { MetadataFetch } from './auth/client-metadata.ts';
import { buildConnectorRuntime, buildEndpoints, type GatewayContext } from './gateway-context.ts';
import type { ConnectorRegistry } from './handler-api/descriptor-types.ts';
import { createMethods } from './mcp/methods.ts';
import { createLogger, flushLogger, Metrics } from './operations/observability.ts';
import { OutageLog } from './operations/outage-log.ts';
import { namingSetting } from './operations/startup-errors.ts';
import { testConnection } from './pipeline/connection-test.ts';
import { SoftQuotaWatch } from './metering/soft-quota.ts';
import { MailNotices } from './mail/notices.ts';
import { Pipeline } from './pipeline/pipeline.ts';
import { lockEmbeddedDatabase } from './store/embedded-lock.ts';
import { checkKeys, type KeySource } from './secrets/key-check.ts';
import {
  createLinkIssuer,
  EXPIRED_LINK_RETENTION_MS,
  LINK_PURGE_INTERVAL_MS,
  purgeExpiredLinks,
} from './secrets/signed-links.ts';
import { OAuthClient, OAuthRefresher } from './upstream/oauth.ts';
import type { EmbeddedOpening } from './store/embedded-opening.ts';
import { openStore } from './store/open-store.ts';
import { DATA_DIR_ENTRIES, makeDataDirPrivate } from './store/private-files.ts';
import { Readiness } from './operations/readiness.ts';
import { DEFAULT_QUERY_TIMEOUT_MS } from './store/sql-client.ts';
import { MemoryRateLimiter, SharedRateLimiter, type RateLimiter, UpstreamQuotas } from './metering/rate-limit.ts';
import type { SharedStore } from './store/shared-store.ts';
import { PlatformState } from './store/state.ts';
import type { PlatformStore } from './store/store.ts';
import { deprecatedToolKeys } from './metering/deprecated-tools.ts';
import { UsageMeter } from './metering/usage.ts';
import { CallLogWriter } from './metering/call-log.ts';
import { applySpills, spillCalls, writeSpill } from './metering/usage-spill.ts';
import { loadOrCreateKeyFile, Vault } from './secrets/vault.ts';
import { createMailer } from './mail/mailer.ts';
import { authorizeErrorPage } from './portal/pages/oauth-error.ts';
import { createPortal, type PasswordLinkDelivery, type PortalRoutes } from './portal/pages.ts';
import { createHttpApp, type HttpApp } from './transport/server.ts';
import type { TelemetryEnv } from './telemetry/call-telemetry.ts';
import { startTelemetry } from './telemetry/telemetry.ts';
import { closeSharedDispatcher, type UpstreamClientOptions } from './upstream/client.ts';
import { BodyBudget } from './upstream/body-budget.ts';
import { connectorUpstreams } from './upstream/connector-upstreams.ts';

export interface AppOptions {
  readonly config: GatewayConfig;
  /** Every connector that may be served (generated/registry.ts); the configuration picks the enabled ones. */
  readonly registry: ConnectorRegistry;
  /** Use this store instead of opening one from the configuration (tests). */
  readonly store?: PlatformStore;
  readonly logger?: Logger;
  readonly now?: () => Date;
  /** Let account administrators subscribe in the portal; unset: the configuration's `selfService.purchase`. */
  readonly selfServicePurchase?: boolean;
  /** Let account administrators change their fair-use quota in the portal; unset: `selfService.quota`. */
  readonly selfServiceQuota?: boolean;
  /** How portal set-password links reach their users (tests); the default mails them (runtime/mail/). */
  readonly deliverPasswordLink?: PasswordLinkDelivery;
  readonly upstreamSleep?: UpstreamClientOptions['sleep'];
  /**
   * How client ID metadata documents of OAuth clients are fetched (tests); the default connects to public addresses
   * only.
   */
  readonly fetchClientMetadata?: MetadataFetch;
  /** Deadline of every store query (default `DEFAULT_QUERY_TIMEOUT_MS`, 5 s); also bounds readiness. */
  readonly storeTimeoutMs?: number;
  /**
   * The embedded database, already opening since before the configuration was loaded
   * (bin/gateway.ts). Used when it is the configured one; otherwise closed.
   */
  readonly embeddedOpening?: EmbeddedOpening;
  /** Where the OTEL_* variables are read (default `process.env`); OpenTelemetry is loaded only when they ask for it. */
  readonly telemetryEnv?: TelemetryEnv;
}

export interface App {
  readonly context: GatewayContext;
  readonly http: HttpApp;
  /** The portal: its `sessions.lookup(req)` answers the signed-in user of a request. */
  readonly portal: PortalRoutes;
  /** Base URL the server listens on. */
  url: string;
  listen(port?: number, host?: string): Promise<string>;
  close(): Promise<void>;
}

const INVALIDATE_CHANNEL = 'platform-invalidate';
/** How long the store's change log keeps a change (incremental snapshot updates). */
const CHANGE_LOG_RETENTION_MS = 24 * 60 * 60 * 1000;
/** Deadline of each readiness check (capped by the store deadline). */
const READINESS_TIMEOUT_MS = 1000;

// Long because: it is the composition root, read top to bottom in start-up order (store, keys,
// shared store, snapshot, the request path, timers, listen); each step uses the handles the earlier
// ones made and `close` releases them in reverse. Candidate for splitting by phase.
export async function createApp(options: AppOptions): Promise<App> {
  // The options win over the configuration (docs/decisions/portal.md, 'Self-service is the operator's choice').
  const { selfService } = options.config;
  const purchase = options.selfServicePurchase ?? selfService.purchase;
  const config: GatewayConfig = {
    ...options.config,
    selfService: { purchase, quota: options.selfServiceQuota ?? selfService.quota },
  };
  const log = options.logger ?? createLogger(config.logLevel);
  const metrics = new Metrics();
  const failOpen = (component: string) => metrics.failOpen.inc({ component });
  // Store outages: one line when they start, one when they end
  // (docs/decisions/operations.md, 'Store outages are logged when they start and end').
  const redisOutage = new OutageLog({
    store: 'redis',
    setting: 'REDIS_URL',
    log,
    probe: async () => {
      // Started without Redis: until connect() has returned the store, nothing answers yet.
      if (!shared) throw new Error('shared store: not connected yet');
      await shared.ping();
    },
  });
  const storeOutage = new OutageLog({
    store: config.databaseUrl ? 'postgres' : 'embedded',
    setting: config.databaseUrl ? 'DATABASE_URL' : 'DATA_DIR',
    log,
  });

  const embedded = !options.store && !config.databaseUrl;
  // A failure in the data directory names DATA_DIR
  // (docs/decisions/operations.md, 'Start-up failures name the setting').
  const inDataDir = <T>(step: () => T) => namingSetting('DATA_DIR', config.dataDir, 'cannot be used', step);
  // In every mode: token hashes, ciphertexts, the key file and the admin socket are for this user only.
  const opened = await inDataDir(() => makeDataDirPrivate(config.dataDir, DATA_DIR_ENTRIES));
  if (opened > 0)
    log.warn(
      { dataDir: config.dataDir, entries: opened },
      'the data directory was open to other users: made it private (directories 0700, files 0600)',
    );
  let keys = config.secretKeys;
  let keySource: KeySource = { kind: 'env' };
  if (!keys) {
    const keyFile = join(config.dataDir, 'secret.key');
    const loaded = await inDataDir(() => loadOrCreateKeyFile(keyFile));
    if (loaded.created)
      log.warn(
        { keyFile },
        'created a credential encryption key file (mode 0600); back it up, or set GATEWAY_SECRET_KEYS in production',
      );
    keys = loaded.keys;
    keySource = { kind: 'file', path: keyFile };
  }
  const vault = new Vault(keys);

  const dbDir = join(config.dataDir, 'db');
  let opening = options.embeddedOpening;
  if (opening && !(embedded && opening.dbDir === dbDir)) {
    // Begun for a store the configuration does not use after all.
    await opening.client.close();
    opening.releaseLock();
    opening = undefined;
  }
  const releaseLock = embedded
    ? (opening?.releaseLock ?? (await inDataDir(() => lockEmbeddedDatabase(dbDir, 'gateway'))))
    : undefined;
  const storeTimeoutMs = options.storeTimeoutMs ?? config.storeTimeoutMs ?? DEFAULT_QUERY_TIMEOUT_MS;
  let store: PlatformStore;
  try {
    const open = () =>
      openStore({
        ...(config.databaseUrl
          ? { databaseUrl: config.databaseUrl }
          : { dataDir: dbDir, ...(opening ? { opening } : {}) }),
        queryTimeoutMs: storeTimeoutMs,
      });
    store =
      options.store ??
      (config.databaseUrl
        ? await namingSetting('DATABASE_URL', describeUrl(config.databaseUrl), 'could not be opened', open)
        : await inDataDir(open));
  } catch (error) {
    releaseLock?.();
    throw error;
  }
  try {
    // A wrong key refuses to start (ConfigError) rather than failing every stored credential.
    await checkKeys(vault, store, keySource);
  } catch (error) {
    if (!options.store) await store.close().catch(() => {});
    releaseLock?.();
    throw error;
  }
  let shared: SharedStore | undefined;
  if (config.redisUrl) {
    // Loaded only when configured: the Redis client costs ~240 ms of start-up.
    const { RedisSharedStore } = await import('./store/shared-store.ts');
    try {
      shared = await RedisSharedStore.connect(config.redisUrl, {
        timeoutMs: config.fairUse.storeTimeoutMs,
        prefix: config.redisPrefix,
        // A dropped connection: the client reconnects with backoff; callers fail open meanwhile.
        // Logged once when the outage starts and once when it ends (runtime/operations/outage-log.ts).
        onError: (error) => {
          failOpen('shared_store');
          redisOutage.fault('connection', error);
        },
        health: redisOutage,
        // docs/decisions/operations.md, 'A replica can start while Redis is down': it starts
        // degraded (readiness says so) and uses Redis as soon as it answers.
        startDegraded: (error) => {
          failOpen('shared_store');
          redisOutage.fault('connection', error);
          log.warn(
            { redis: describeUrl(config.redisUrl!), err: { message: (error as Error)?.message } },
            'Redis did not answer at start: serving degraded (rate limits, fair use and gates fail open) until it does',
          );
        },
      });
    } catch (error) {
      // Name the setting and where it points (never a password), and leave nothing open behind.
      redisOutage.close();
      if (!options.store) await store.close().catch(() => {});
      releaseLock?.();
      throw new ConfigError(`REDIS_URL ${describeUrl(config.redisUrl)} did not answer: ${(error as Error).message}`);
    }
  }

  const state = new PlatformState(store);
  await state.reload();
  // A refresh that fails starts a store outage (logged once); the next one that succeeds ends it.
  state.start(config.snapshotRefreshMs, (error) =>
    error === undefined ? storeOutage.ok() : storeOutage.fault('snapshot refresh', error),
  );
  let softQuota: SoftQuotaWatch | undefined; // soft-mode "quota reached" mail, made once the context is
  const meter = new UsageMeter({
    onFlushed: (rows) => void softQuota?.flushed(rows),
    store,
    timeZone: config.timeZone,
    defaultQuota: config.fairUse.defaultQuota,
    flushMs: config.usageFlushMs,
    counterTimeoutMs: config.fairUse.storeTimeoutMs,
    seedTimeoutMs: config.fairUse.seedTimeoutMs,
    shared,
    log,
    onFailOpen: failOpen,
    deprecatedTools: deprecatedToolKeys(
      config.connectors.map((c) => ({ id: c.id, tools: options.registry[c.key]?.descriptor.tools ?? [] })),
    ),
  });
  // docs/decisions/operations.md, 'Usage counted during a database outage is spilled on stop'.
  await applySpills(config.dataDir, store.usage, log);
  meter.start();
  metrics.usageBacklog = () => meter.backlog();
  const clock = options.now;
  const callLog = new CallLogWriter({
    store,
    timeZone: config.timeZone,
    flushMs: config.usageFlushMs,
    retentionDays: config.callLogDays,
    log,
    ...(clock ? { now: () => clock().getTime() } : {}),
  });
  callLog.start();

  const rateLimiter: RateLimiter = shared
    ? // The failure itself is in the Redis outage log (one line per outage, not one per call).
      new SharedRateLimiter(shared, config.rateLimit, () => failOpen('rate_limit'))
    : new MemoryRateLimiter(config.rateLimit);
  const upstreamQuotas = new UpstreamQuotas(shared, () => failOpen('upstream_quota'));

  const runtimes = config.connectors.flatMap((c) => {
    const module = options.registry[c.key];
    return module ? [buildConnectorRuntime(c, module)] : [];
  });
  const upstreams = connectorUpstreams(runtimes, shared, failOpen);

  // OAuth clients of the oauth2 connectors the deployment registered a client id for.
  const oauthClients = new Map<string, OAuthClient>();
  for (const r of runtimes) {
    const provider = r.descriptor.oauth;
    const clientId = r.config.oauth?.clientId;
    if (provider && clientId)
      oauthClients.set(r.config.key, new OAuthClient(provider, { ...r.config.oauth, clientId }));
  }
  const now = options.now ?? (() => new Date());
  const oauthRefresher = new OAuthRefresher({ store, vault, log, now, onWrite: () => state.refresh() });

  const telemetry = await startTelemetry(options.telemetryEnv ?? process.env, { metrics, log });
  const bodyBudget = new BodyBudget(config.upstreamBodyBudgetBytes);
  metrics.upstreamBodies = () => ({ reserved: bodyBudget.reserved, waiting: bodyBudget.waiting });

  // Mail: by SMTP (SMTP_URL) or into the data directory's outbox; said once where it goes.
  const mail = createMailer(config, log);
  log.info({ mail: mail.via, where: mail.where }, 'mail to people goes here');
  const context: GatewayContext = {
    config,
    mail,
    platform: platformDescriptor,
    store,
    state,
    vault,
    meter,
    callLog,
    rateLimiter,
    upstreamQuotas,
    log,
    metrics,
    gates: upstreams.gates,
    dispatchers: upstreams.dispatchers,
    bodyBudget,
    endpoints: buildEndpoints(runtimes),
    now,
    oauth: { clients: oauthClients, refresher: oauthRefresher },
    readiness: new Readiness({
      store,
      ...(shared ? { shared } : {}),
      state,
      keyVersions: vault.versions(),
      timeoutMs: Math.min(storeTimeoutMs, READINESS_TIMEOUT_MS),
      // Three missed refreshes and one query deadline.
      snapshotMaxAgeMs: 3 * config.snapshotRefreshMs + storeTimeoutMs,
      onReport: (report) => {
        for (const check of ['store', 'shared_store', 'migrations', 'snapshot', 'keys'] as const) {
          if (report.checks[check] !== undefined) metrics.ready.set({ check }, report.checks[check] === 'ok' ? 1 : 0);
        }
        metrics.ready.set({ check: 'all' }, report.ready ? 1 : 0);
        if (shared) metrics.degraded.set({ dependency: 'redis' }, report.degraded.includes('shared_store') ? 1 : 0);
      },
    }),
    ...(options.upstreamSleep ? { upstreamSleep: options.upstreamSleep } : {}),
    ...(telemetry ? { telemetry } : {}),
  };

  // Writes through this process refresh the snapshot at once; other replicas hear about them.
  if (shared) {
    // The message is the change version the write produced: a replica already there does nothing,
    // one behind reads only the changes since its own version (any other message: catch up).
    state.onLocalChange(
      (version) => void shared!.publish(INVALIDATE_CHANNEL, String(version)).catch(() => failOpen('shared_store')),
    );
    const heard = (message: string) => void state.syncTo(Number(message)).catch(() => {});
    // After a reconnect the broadcasts sent meanwhile were missed: catch up by change version once.
    const resubscribed = () => void state.sync().catch(() => {});
    await shared.subscribe(INVALIDATE_CHANNEL, heard, resubscribed).catch(() => failOpen('shared_store'));
  }
  metrics.readinessProbe = () => context.readiness!.evaluate();

  // Along the request path, built bottom up: links and the tools/call pipeline, the MCP methods
  // that use them, the portal pages beside them, and the HTTP server in front of both.
  const links = createLinkIssuer({
    store,
    vault,
    config,
    now: context.now,
    connectLinkValidSeconds: platformDescriptor.limits.connectLinkValidSeconds,
    portalLinkValidSeconds: platformDescriptor.limits.portalLinkValidSeconds,
    storeTimeoutMs,
  });
  // Expired connect links: purged at start and then hourly (a failure is logged; the next run retries).
  const purgeLinks = () =>
    void purgeExpiredLinks(store, context.now()).then(
      (n) => n > 0 && log.info({ links: n }, 'expired connect links purged'),
      (error: unknown) =>
        log.warn(
          { err: { message: (error as Error)?.message } },
          'purging expired connect links failed; retrying in an hour',
        ),
    );
  purgeLinks();
  // OAuth states live as long as the connect link they came from; purged with the links.
  const purgeStates = () => {
    const before = new Date(context.now().getTime() - EXPIRED_LINK_RETENTION_MS);
    void store.links.purgeOAuthStates(before).catch(() => {});
    // Expired portal sessions, old sign-in failures and used or expired set-password links: nothing
    // reads them after that day, and the tables would only grow.
    void store.portal.purgePortal(before).catch(() => {});
    // Expired OAuth codes and assistant tokens, for the same reason: an expired one is refused anyway.
    void store.mcp.purgeMcpAuthorization(before).catch(() => {});
  };
  purgeStates();
  // The change log behind incremental snapshot updates: a day is kept (a replica further behind reloads in full).
  const pruneChanges = () =>
    void store.changes.pruneChangeLog(new Date(context.now().getTime() - CHANGE_LOG_RETENTION_MS)).catch(() => {});
  const linkPurge = setInterval(() => {
    purgeLinks();
    purgeStates();
    pruneChanges();
  }, LINK_PURGE_INTERVAL_MS);
  linkPurge.unref();
  const pipeline = new Pipeline(context, links);
  softQuota = new SoftQuotaWatch({
    meter: () => meter,
    account: (id) => state.account(id),
    notices: new MailNotices(context),
    now,
  });
  const methods = createMethods(context, pipeline, links);
  const portal = createPortal(context, {
    selfServicePurchase: config.selfService.purchase,
    checkCredential: (endpoint, accountId, values, signal) =>
      pipeline.checkCredential(endpoint, accountId, values, signal),
    testConnection: (endpoint, identity, signal, reqId) =>
      testConnection((request) => pipeline.call(request), endpoint, identity, signal, reqId),
    selfServiceQuota: config.selfService.quota,
    ...(options.deliverPasswordLink ? { deliverPasswordLink: options.deliverPasswordLink } : {}),
  });
  const authorization = createAuthorizationServer(context, {
    authorizeErrorPage: authorizeErrorPage(context.platform),
    ...(options.fetchClientMetadata ? { fetchClientMetadata: options.fetchClientMetadata } : {}),
  });
  const http = createHttpApp(context, methods, portal, authorization);

  const app: App = {
    context,
    http,
    portal,
    url: '',
    listen(port = config.port, host = config.host) {
      return new Promise((resolve, reject) => {
        http.server.once('error', reject);
        http.server.listen(port, host, () => {
          const address = http.server.address() as AddressInfo;
          app.url =
            `http://${address.address.includes(':') ? `[${address.address}]` : address.address}:` + `${address.port}`;
          // Links must point at where the gateway really listens unless a public URL was configured.
          if (!config.publicBaseUrlExplicit) (config as { publicBaseUrl: string }).publicBaseUrl = app.url;
          resolve(app.url);
        });
      });
    },
    async close() {
      const closed = new Promise<void>((resolve) => http.server.close(() => resolve()));
      http.server.closeIdleConnections();
      const deadline = Date.now() + 25_000;
      while (http.inFlight() > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      http.server.closeAllConnections();
      await closed;
      state.stop();
      mail.close();
      clearInterval(linkPurge);
      http.refusals.flush();
      http.refusals.close();
      redisOutage.close();
      storeOutage.close();
      await callLog.stop();
      const kept = await stopMeter(meter, config.dataDir, config.usageDrainTimeoutMs, log);
      await shared?.close();
      if (!options.store) await store.close();
      releaseLock?.();
      await upstreams.close();
      await closeSharedDispatcher();
      // After the last call: its spans and a final metrics collection are exported.
      await telemetry?.shutdown();
      flushLogger(log);
      if (!kept) throw new Error('usage counted during a database outage could be neither flushed nor spilled');
    },
  };
  return app;
}

/**
 * The final flush, then a spill of what the database did not take within the drain time. Returns
 * whether every count was kept.
 */
async function stopMeter(meter: UsageMeter, dataDir: string, drainMs: number, log: Logger): Promise<boolean> {
  const counted = meter.backlog().calls;
  const left = await meter.stop(drainMs);
  const spilled = spillCalls(left);
  if (left.length === 0) {
    if (counted > 0) log.info({ kept: counted, flushed: counted, spilled: 0 }, 'final usage flush');
    return true;
  }
  try {
    const file = writeSpill(dataDir, left);
    log.warn(
      { kept: counted, flushed: counted - spilled, spilled, file },
      'final usage flush incomplete: the rest is spilled to the data directory',
    );
    return true;
  } catch (error) {
    log.error(
      {
        kept: counted - spilled,
        flushed: counted - spilled,
        spilled: 0,
        lost: spilled,
        err: { message: (error as Error).message },
      },
      'final usage flush failed and the spill could not be written',
    );
    return false;
  }
}
