// Starts a real gateway (HTTP on a random port) over a given store, plus helpers to create tenants
// and MCP clients (the SDK Client over streamable HTTP, as a real assistant would connect).
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Writable } from 'node:stream';
import pino, { type Logger } from 'pino';
import { registry } from '../../generated/registry.ts';
import { loadConfig } from '../../runtime/config/config.ts';
import type { GatewayConfig } from '../../runtime/config/settings.ts';
import { createApp, type App, type AppOptions } from '../../runtime/app.ts';
import type { Account, PlatformStore, Repositories, User } from '../../runtime/store/store.ts';
import { issueToken } from '../../runtime/auth/caller-tokens.ts';
import { Vault } from '../../runtime/secrets/vault.ts';
import type { UsageRecord } from '../../runtime/metering/usage-record.ts';

export const TEST_SECRET = { 1: Buffer.alloc(32, 7).toString('base64') };

export function testConfig(env: Record<string, string> = {}): GatewayConfig {
  const base = loadConfig(registry, {
    DATA_DIR: '/tmp/cg-test-unused',
    LOG_LEVEL: 'silent',
    USAGE_FLUSH_MS: '60000',
    ...env,
  });
  return { ...base, secretKeys: TEST_SECRET };
}

export interface StartedGateway {
  readonly app: App;
  readonly url: string;
  readonly store: PlatformStore;
  close(): Promise<void>;
}

export async function startGateway(
  store: PlatformStore,
  options: Partial<AppOptions> & { env?: Record<string, string> } = {},
): Promise<StartedGateway> {
  const config = options.config ?? testConfig(options.env);
  const app = await createApp({
    logger: pino({ level: 'silent' }),
    upstreamSleep: async () => {},
    ...options,
    registry: options.registry ?? registry,
    config,
    store,
  });
  const url = await app.listen(0, '127.0.0.1');
  return { app, url, store, close: () => app.close() };
}

/**
 * Stores a tenant's connection for one endpoint instance, sealed by the gateway's vault as the
 * connect form would, and refreshes the gateway's snapshot. `instanceId` defaults to the key.
 */
export async function connectTenant(
  gw: StartedGateway,
  tenant: Tenant,
  connectorKey: string,
  credential: Readonly<Record<string, unknown>>,
  instanceId = connectorKey,
): Promise<void> {
  const sealed = gw.app.context.vault.seal(JSON.stringify(credential), tenant.account.id, instanceId);
  await gw.store.connections.putConnection({ accountId: tenant.account.id, instanceId, connectorKey, ...sealed });
  await gw.app.context.state.refresh();
}

/**
 * Stores a tenant's connection sealed with a key of the gateway process a test starts itself
 * (`GATEWAY_SECRET_KEYS=1:<key>`), before that process runs.
 */
export async function storeSealedConnection(
  store: Pick<Repositories, 'connections'>,
  key: string,
  tenant: Tenant,
  connectorKey: string,
  credential: Readonly<Record<string, unknown>>,
  instanceId = connectorKey,
): Promise<void> {
  const sealed = new Vault({ 1: key }).seal(JSON.stringify(credential), tenant.account.id, instanceId);
  await store.connections.putConnection({ accountId: tenant.account.id, instanceId, connectorKey, ...sealed });
}

export interface Tenant {
  readonly account: Account;
  readonly user: User;
  readonly token: string;
}

let counter = 0;
export async function createTenant(
  store: Pick<Repositories, 'accounts' | 'users' | 'tokens'>,
  options: {
    subscribe?: string[];
    seats?: string[];
    terms?: boolean;
    role?: 'admin' | 'member';
    accountId?: string;
  } = {},
): Promise<Tenant> {
  const n = ++counter;
  const account = options.accountId
    ? (await store.accounts.getAccount(options.accountId))!
    : await store.accounts.createAccount({ name: `Tenant ${n} ${Date.now()}` });
  const user = await store.users.createUser({
    accountId: account.id,
    email: `user${n}-${Date.now()}-${Math.random().toString(36).slice(2)}@example.test`,
    name: `User ${n}`,
    role: options.role ?? 'admin',
  });
  if (options.terms !== false) await store.users.acceptTerms(user.id, new Date());
  for (const key of options.subscribe ?? []) await store.accounts.setSubscription(account.id, key, true);
  for (const key of options.seats ?? options.subscribe ?? []) await store.users.setSeat(user.id, key, true);
  const { token } = await issueToken(store, user.id, 'test');
  return { account, user, token };
}

export async function mcpClient(gatewayUrl: string, instanceId: string, token: string): Promise<Client> {
  const client = new Client({ name: 'gateway-test', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(`${gatewayUrl}/${instanceId}/mcp`), {
    requestInit: { headers: { authorization: `Bearer ${token}` } },
  });
  await client.connect(transport);
  return client;
}

/** A raw JSON-RPC POST (for protocol edge cases the SDK client would never send). */
export async function rpc(
  gatewayUrl: string,
  instanceId: string,
  token: string | null,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: Headers; json: unknown; text: string }> {
  const res = await fetch(`${gatewayUrl}/${instanceId}/mcp`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...headers,
    },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, json, text };
}

export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}

/** GET /api/usage as the caller. */
export async function usageOf(gatewayUrl: string, token: string): Promise<UsageRecord> {
  const res = await fetch(`${gatewayUrl}/api/usage`, { headers: { authorization: `Bearer ${token}` } });
  if (res.status !== 200) throw new Error(`GET /api/usage answered ${res.status}`);
  return (await res.json()) as UsageRecord;
}

/** The text block of a tool result, and the same parsed as JSON. */
export const resultText = (result: unknown): string =>
  (result as { content: Array<{ text: string }> }).content[0]!.text;
export const resultJson = (result: unknown): any => JSON.parse(resultText(result));

/**
 * The one text block of a failure result (spec 000: a tool failure is `isError: true` with exactly
 * one text block). Throws on any other shape, so a second block fails the test that reads it.
 */
export function failureText(result: unknown): string {
  const { isError, content } = result as { isError?: boolean; content?: Array<{ type?: string; text?: unknown }> };
  if (
    isError !== true ||
    !Array.isArray(content) ||
    content.length !== 1 ||
    content[0]!.type !== 'text' ||
    typeof content[0]!.text !== 'string'
  ) {
    throw new Error(`not a failure of exactly one text block: ${JSON.stringify(result).slice(0, 300)}`);
  }
  return content[0]!.text;
}

/**
 * A reconnect answer, split: the spec's text, then (after a blank line, in the same block) the
 * platform's reconnect instruction, and the connect link it ends with. `instruction` and `link` are
 * undefined when the answer carries no instruction.
 */
export function reconnectParts(result: unknown): { text: string; instruction?: string; link?: string } {
  const whole = failureText(result);
  const cut = whole.lastIndexOf('\n\n');
  if (cut < 0) return { text: whole };
  const instruction = whole.slice(cut + 2);
  const at = instruction.lastIndexOf('http');
  return { text: whole.slice(0, cut), instruction, ...(at >= 0 ? { link: instruction.slice(at) } : {}) };
}

/** A log destination that keeps every JSON line it is written, parsed, for a test to look at. */
export function captureLogLines(): { lines: Array<Record<string, unknown>>; destination: Writable } {
  const lines: Array<Record<string, unknown>> = [];
  const destination = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split('\n').filter(Boolean))
        lines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  return { lines, destination };
}
