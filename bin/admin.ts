// Admin CLI for operators: every platform operation without the portal.
//   npm run admin -- <command> [arguments]      (npm run admin -- help)
// Writes go to the configured store; running gateways pick them up within SNAPSHOT_REFRESH_MS
// (immediately when a shared store is configured).
import { join } from 'node:path';
import { registry, type ConnectorKey } from '#generated/registry.ts';
import { ConfigError, describeUrl, envName, loadConfig, suggest, type GatewayConfig } from '#runtime/config.ts';
import type { CredentialKind } from '#runtime/handler-api/descriptor-types.ts';
import { lockEmbeddedDatabase } from '#runtime/platform/embedded-lock.ts';
import { checkKeys } from '#runtime/platform/key-check.ts';
import { openStore } from '#runtime/platform/open-store.ts';
import { DATA_DIR_ENTRIES, makeDataDirPrivate } from '#runtime/platform/private-files.ts';
import type { FairUseMode, PlatformStore } from '#runtime/platform/store.ts';
import { loadOrCreateKeyFile, newSecretKey, Vault, VaultError } from '#runtime/platform/vault.ts';
import { issueToken } from '#runtime/platform/tokens.ts';
import { UsageMeter } from '#runtime/platform/usage.ts';
import pino from 'pino';
import { createHash, randomBytes } from 'node:crypto';
import { appendFileSync, existsSync, mkdirSync } from 'node:fs';
import { userInfo } from 'node:os';
import { platformDescriptor } from '#generated/platform/descriptor.ts';
import { ADMIN_SOCKET_FILE, type AdminHandler, runOverSocket, socketAlive } from '#runtime/platform/admin-socket.ts';
import { auditDetail, recordAudit } from '#runtime/platform/audit.ts';
import { text } from 'node:stream/consumers';
import { read } from 'read';

/** Credential fields an operator may set, by the connector's credential kind (required first). */
export const CREDENTIAL_FIELDS: Readonly<Record<CredentialKind, { readonly required: readonly string[]; readonly optional: readonly string[] }>> = {
  api_key: { required: ['apiKey'], optional: [] },
  static_token: { required: ['token'], optional: [] },
  login_company: { required: ['username', 'password', 'companyId'], optional: [] },
  oauth2: { required: ['accessToken'], optional: ['refreshToken', 'expiresAt', 'scope'] },
  managed_basic: { required: [], optional: [] },
};

/** Fields that hold a secret: prompted for without echo. */
const SECRET_FIELD = /key|secret|password|token/i;

/** One credential field the CLI asks for. */
export interface CredentialPrompt {
  readonly name: string;
  readonly required: boolean;
  readonly secret: boolean;
}

/**
 * Where `connections set` reads the credential: `field=value` lines. Never from the command line,
 * whose arguments every local user can read in the process list.
 */
export type CredentialInput = (fields: readonly CredentialPrompt[]) => Promise<string>;

const NO_INPUT: CredentialInput = () => Promise.reject(new UsageError('connections set reads the credential from standard input, and none is available here'));

/**
 * The credential of `connections set` from this process's standard input: prompted field by field
 * (secrets without echo) on a terminal, otherwise `field=value` lines read to the end.
 */
export const stdinCredential: CredentialInput = async (fields) => {
  if (!process.stdin.isTTY) return text(process.stdin);
  const lines: string[] = [];
  for (const f of fields) {
    const value = await read({ prompt: `${f.name}${f.required ? '' : ' (optional)'}: `, silent: f.secret, replace: f.secret ? '*' : '', output: process.stderr });
    if (value !== '') lines.push(`${f.name}=${value}`);
  }
  return lines.join('\n');
};

export const HELP = `Usage: npm run admin -- <command> [arguments]

  accounts list
  accounts create <name>
  accounts delete <accountId>
  users list <accountId>
  users create <accountId> <email> <name> [--role admin|member]
  users invite-link <userId>                      prints a single-use link that sets the user's portal password
  users set-role <userId> admin|member
  sessions end <userId>                           signs the user out of the portal everywhere
  audit list <accountId> [--limit <n>]            the account's audit log, newest first
  tokens issue <userId> [--label <label>]        prints the token once
  tokens list <userId>
  tokens revoke <tokenId>
  grants list [--account <accountId>]            assistants connected with OAuth (every account's without --account)
  grants revoke <grantId>                         revokes the grant and every token of it
  terms accept <userId>
  subscriptions list <accountId>
  subscriptions set <accountId> <connector> on|off
  seats list <userId>
  seats set <userId> <connector> on|off
  connections list [<accountId>]
  connections set <accountId> <instanceId>        reads the credential from standard input: field=value lines
                                                  (e.g. apiKey=…, or username=… password=… companyId=…); prompts on a terminal
  connections delete <accountId> <instanceId>
  data-layer enable|disable|status <accountId> <instanceId>   opt-in first-seen records (disable deletes them)
  fair-use set <accountId> [--mode off|soft|hard] [--quota <n>|default]
  usage <accountId> [--month YYYY-MM]
  keys add                                        adds a new key version to the key file (embedded default)
  keys reencrypt                                  re-encrypts every credential under the newest key

<connector> is a connector key: ${Object.keys(registry).join(', ')}.
Credential fields of connections set: ${Object.entries(registry)
  .filter(([, m]) => m.descriptor.credential !== 'managed_basic')
  .map(([key, m]) => `${key} ${[...CREDENTIAL_FIELDS[m.descriptor.credential].required, ...CREDENTIAL_FIELDS[m.descriptor.credential].optional].join(' ')}`)
  .join('; ')}.
Configuration (database, keys) comes from the same environment and config file as the gateway.
While a gateway runs on the embedded database, commands go to it over its admin socket
(<DATA_DIR>/admin.sock, mode 0600), so nothing needs stopping.`;

export class UsageError extends Error {}

function flag(args: string[], name: string): string | undefined {
  const i = args.indexOf(name);
  if (i < 0) return undefined;
  const value = args[i + 1];
  if (value === undefined) throw new UsageError(`${name} needs a value`);
  args.splice(i, 2);
  return value;
}

function need(args: string[], n: number, what: string): string[] {
  if (args.length < n) throw new UsageError(`missing ${what}`);
  return args;
}

const isConnectorKey = (key: string): key is ConnectorKey => Object.hasOwn(registry, key);

function connectorKey(key: string): ConnectorKey {
  if (!isConnectorKey(key)) throw new UsageError(`unknown connector "${key}" (known: ${Object.keys(registry).join(', ')})`);
  return key;
}

const EMAIL = /^[^\s@]+@[^\s@.]+(\.[^\s@.]+)+$/;
const MONTH = /^\d{4}-(0[1-9]|1[0-2])$/;

/** The configured connector serving an instance id (`<id>` or `<id>-<n>`, n from 2 to its maxInstances). */
function servingConnector(config: GatewayConfig, instanceId: string): GatewayConfig['connectors'][number] {
  for (const c of config.connectors) {
    if (instanceId === c.id) return c;
    const n = instanceId.startsWith(`${c.id}-`) ? instanceId.slice(c.id.length + 1) : '';
    if (/^[1-9]\d?$/.test(n) && Number(n) >= 2 && Number(n) <= c.maxInstances) return c;
  }
  throw new UsageError(
    `no connector serves the instance "${instanceId}"; ${suggest(
      instanceId,
      config.connectors.map((c) => c.id),
    )}`,
  );
}

/** The credential kind of a connector that takes tenant connections. */
function credentialKind(key: ConnectorKey): Exclude<CredentialKind, 'managed_basic'> {
  const kind = registry[key].descriptor.credential;
  if (kind === 'managed_basic') throw new UsageError(`the ${key} connector uses the deployment's own account (${envName(key)}_USERNAME and ${envName(key)}_PASSWORD), not a tenant connection`);
  return kind;
}

/** `field=value` pairs checked against the credential kind of the connector. */
function credentialFields(key: ConnectorKey, pairs: readonly string[]): Record<string, string> {
  const kind = credentialKind(key);
  const { required, optional } = CREDENTIAL_FIELDS[kind];
  const known = [...required, ...optional];
  const fields: Record<string, string> = {};
  for (const p of pairs) {
    const eq = p.indexOf('=');
    // The line itself is never echoed: it may be a bare secret.
    if (eq <= 0) throw new UsageError(`expected field=value lines (fields: ${known.join(', ')}); a line has no "field="`);
    const name = p.slice(0, eq);
    if (!known.includes(name)) throw new UsageError(`unknown credential field "${name}" for ${key} (${kind}); ${suggest(name, known)}`);
    if (Object.hasOwn(fields, name)) throw new UsageError(`credential field "${name}" is given twice`);
    fields[name] = p.slice(eq + 1);
  }
  const missing = required.filter((f) => !fields[f]);
  if (missing.length) throw new UsageError(`${key} (${kind}) needs ${required.map((f) => `${f}=…`).join(' ')}; missing ${missing.join(', ')}`);
  return fields;
}

function onOff(value: string | undefined): boolean {
  if (value === 'on') return true;
  if (value === 'off') return false;
  throw new UsageError('expected on or off');
}

/** The connector key serving an instance, which must have a tool that uses the data layer. */
function dataLayerConnector(config: GatewayConfig, instanceId: string): ConnectorKey {
  const served = servingConnector(config, instanceId);
  const key = connectorKey(served.key);
  if (!registry[key].descriptor.tools.some((t) => t.dataLayer)) throw new UsageError(`the ${key} connector has no tool that uses the data layer`);
  return key;
}

export function vaultFor(config: GatewayConfig): Vault {
  return new Vault(config.secretKeys ?? loadOrCreateKeyFile(join(config.dataDir, 'secret.key')).keys);
}

/** The vault, after the key check against the database: never seal with a wrong key. */
async function checkedVault(config: GatewayConfig, store: PlatformStore): Promise<Vault> {
  const vault = vaultFor(config);
  await checkKeys(vault, store, config.secretKeys ? { kind: 'env' } : { kind: 'file', path: join(config.dataDir, 'secret.key') });
  return vault;
}

/** Who runs the CLI, for the audit log: the operating-system user, and where the command came from. */
export interface CliActor {
  readonly actor: string;
  readonly source: string;
}

export const localActor = (source = 'local'): CliActor => ({ actor: `cli:${userInfo().username}`, source });

export async function runCli(argv: string[], config: GatewayConfig, store: PlatformStore, out: (line: string) => void, input: CredentialInput = NO_INPUT, who: CliActor = localActor()): Promise<void> {
  const [group, command, ...rest] = argv;
  const args = [...rest];
  const print = (value: unknown) => out(typeof value === 'string' ? value : JSON.stringify(value, null, 2));
  /** The audit entry of a change (never a secret: ids, names, on/off). */
  const audit = (accountId: string | null, action: string, target: string, detail: Record<string, string | number | boolean | null | undefined> = {}) =>
    recordAudit(store, { accountId, actor: who.actor, action, target, detail: auditDetail(detail), source: who.source });
  const accountOfUser = async (userId: string) => (await store.getUser(userId))?.accountId ?? null;
  switch (group === 'usage' ? 'usage' : `${group} ${command ?? ''}`.trim()) {
    case 'accounts list':
      return print(await store.listAccounts());
    case 'accounts create': {
      const account = await store.createAccount({ name: need(args, 1, 'name').join(' ') });
      await audit(account.id, 'account.create', account.id, { name: account.name });
      return print(account);
    }
    case 'accounts delete':
      await store.deleteAccount(need(args, 1, 'accountId')[0]!);
      await audit(args[0]!, 'account.delete', args[0]!);
      return print('deleted');
    case 'users list':
      return print(await store.listUsers(need(args, 1, 'accountId')[0]!));
    case 'users create': {
      const role = (flag(args, '--role') ?? 'member') as 'admin' | 'member';
      if (role !== 'admin' && role !== 'member') throw new UsageError('--role is admin or member');
      const [accountId, email, ...name] = need(args, 3, 'accountId, email and name');
      if (!EMAIL.test(email!)) throw new UsageError(`"${email}" is not an email address (name@example.com)`);
      if (!(await store.getAccount(accountId!))) throw new UsageError(`no account ${accountId}`);
      const user = await store.createUser({ accountId: accountId!, email: email!, name: name.join(' '), role });
      await audit(accountId!, 'user.create', user.id, { email: user.email, role });
      return print(user);
    }
    case 'users invite-link': {
      const userId = need(args, 1, 'userId')[0]!;
      const user = await store.getUser(userId);
      if (!user) throw new UsageError(`no user ${userId}`);
      const token = randomBytes(32).toString('base64url');
      const validSeconds = platformDescriptor.limits.passwordLinkValidSeconds!;
      await store.createPasswordLink({ tokenHash: createHash('sha256').update(token).digest('hex'), userId, expiresAt: new Date(Date.now() + validSeconds * 1000) });
      await audit(user.accountId, 'user.password_link', userId, { email: user.email });
      return print(`set-password link for ${user.email} (single use, valid ${Math.round(validSeconds / 86400)} days): ${config.publicBaseUrl}/portal/set-password/${token}`);
    }
    case 'users set-role': {
      const [userId, role] = need(args, 2, 'userId and admin|member');
      if (role !== 'admin' && role !== 'member') throw new UsageError('the role is admin or member');
      const user = await store.getUser(userId!);
      if (!user) throw new UsageError(`no user ${userId}`);
      await store.setUserRole(userId!, role);
      await audit(user.accountId, 'user.role', userId!, { email: user.email, role });
      return print('ok');
    }
    case 'sessions end': {
      const userId = need(args, 1, 'userId')[0]!;
      const ended = await store.deleteUserSessions(userId);
      await audit(await accountOfUser(userId), 'session.sign_out_everywhere', userId, { sessions: ended });
      return print(`ended ${ended} portal session(s)`);
    }
    case 'audit list': {
      const limit = Number(flag(args, '--limit') ?? '50');
      if (!Number.isInteger(limit) || limit < 1 || limit > 10_000) throw new UsageError('--limit is an integer from 1 to 10000');
      return print(await store.listAudit(need(args, 1, 'accountId')[0]!, limit));
    }
    case 'tokens issue': {
      const label = flag(args, '--label') ?? 'cli';
      const { token, record } = await issueToken(store, need(args, 1, 'userId')[0]!, label);
      await audit(await accountOfUser(record.userId), 'token.create', record.id, { label });
      print({ id: record.id, userId: record.userId, label: record.label });
      return print(`token (shown once, stored only as a hash): ${token}`);
    }
    case 'tokens list':
      return print((await store.listTokens(need(args, 1, 'userId')[0]!)).map(({ tokenHash: _h, ...t }) => t));
    case 'tokens revoke':
      await store.revokeToken(need(args, 1, 'tokenId')[0]!, new Date());
      await audit((await store.getTokenOwner(args[0]!))?.accountId ?? null, 'token.revoke', args[0]!);
      return print('revoked');
    case 'grants list': {
      // Assistants connected with OAuth (issue 21): who let which client reach which endpoints.
      // Never a code, token or hash: the grant holds none (its tokens are rows of their own).
      const accountId = flag(args, '--account');
      if (args.length > 0) throw new UsageError(`grants list takes no argument "${args[0]}" (the account goes with --account)`);
      if (accountId !== undefined && !(await store.getAccount(accountId))) throw new UsageError(`no account ${accountId}`);
      const emails = new Map<string, string | null>();
      const emailOf = async (userId: string) => {
        if (!emails.has(userId)) emails.set(userId, (await store.getUser(userId))?.email ?? null);
        return emails.get(userId)!;
      };
      const grants = await store.listMcpGrants(accountId);
      const listed = [];
      for (const x of grants) {
        listed.push({
          id: x.id,
          accountId: x.accountId,
          client: x.clientName,
          clientId: x.clientId,
          userId: x.userId,
          user: await emailOf(x.userId),
          endpoints: x.endpoints,
          createdAt: x.createdAt,
          revokedAt: x.revokedAt,
        });
      }
      return print(listed);
    }
    case 'grants revoke': {
      const grantId = need(args, 1, 'grantId')[0]!;
      const grant = await store.getMcpGrant(grantId);
      if (!grant) throw new UsageError(`no grant ${grantId} (grants list shows them)`);
      // The grant's tokens are refused from now on (they are valid only while it is not revoked);
      // the change version moves, so every replica drops its cached access tokens.
      if (!(await store.revokeMcpGrant(grant.id, new Date()))) return print(`grant ${grant.id} was already revoked`);
      await audit(grant.accountId, 'oauth.grant.revoke', grant.id, { reason: 'admin', client: grant.clientName, client_id: grant.clientId, owner: (await store.getUser(grant.userId))?.email });
      return print(`revoked grant ${grant.id} (${grant.clientName}) and every token of it`);
    }
    case 'terms accept':
      await store.acceptTerms(need(args, 1, 'userId')[0]!, new Date());
      await audit(await accountOfUser(args[0]!), 'terms.accept', args[0]!);
      return print('accepted');
    case 'subscriptions list':
      return print(await store.listSubscriptions(need(args, 1, 'accountId')[0]!));
    case 'subscriptions set': {
      const [accountId, key, state] = need(args, 3, 'accountId, connector and on|off');
      await store.setSubscription(accountId!, connectorKey(key!), onOff(state));
      await audit(accountId!, 'subscription.set', key!, { subscribed: state });
      return print('ok');
    }
    case 'seats list':
      return print(await store.listSeats(need(args, 1, 'userId')[0]!));
    case 'seats set': {
      const [userId, key, state] = need(args, 3, 'userId, connector and on|off');
      const connector = connectorKey(key!);
      const on = onOff(state);
      const user = await store.getUser(userId!);
      if (!user) throw new UsageError(`no user ${userId}`);
      if (on && !(await store.listSubscriptions(user.accountId)).includes(connector)) {
        throw new UsageError(`account ${user.accountId} is not subscribed to ${connector}: run "subscriptions set ${user.accountId} ${connector} on" first`);
      }
      await store.setSeat(userId!, connector, on);
      await audit(user.accountId, 'seats.set', user.accountId, { changes: `${user.email}:${connector}:${on ? 'on' : 'off'}` });
      return print('ok');
    }
    case 'connections list':
      return print((await store.listConnections(args[0])).map(({ ciphertext: _c, ...c }) => c));
    case 'connections set': {
      const [accountId, instanceId, ...extra] = need(args, 2, 'accountId and instanceId');
      if (extra.length > 0) {
        throw new UsageError(
          `connections set takes no credential on the command line (every local user can read arguments in the process list): give field=value lines on standard input, e.g. printf 'apiKey=%s\\n' "$API_KEY" | npm run admin -- connections set ${accountId} ${instanceId}, or type them at the prompt`,
        );
      }
      const endpointConnector = servingConnector(config, instanceId!);
      const key = connectorKey(endpointConnector.key);
      const kind = credentialKind(key);
      if (!(await store.getAccount(accountId!))) throw new UsageError(`no account ${accountId}`);
      const { required, optional } = CREDENTIAL_FIELDS[kind];
      const prompts = [...required.map((name) => ({ name, required: true })), ...optional.map((name) => ({ name, required: false }))].map((f) => ({ ...f, secret: SECRET_FIELD.test(f.name) }));
      const lines = (await input(prompts))
        .split(/\r?\n/)
        .map((l) => l.trim())
        .filter((l) => l !== '' && !l.startsWith('#'));
      const fields = credentialFields(key, lines);
      const sealed = (await checkedVault(config, store)).seal(JSON.stringify(fields), accountId!, instanceId!);
      await store.putConnection({ accountId: accountId!, instanceId: instanceId!, connectorKey: endpointConnector.key, ...sealed });
      await audit(accountId!, 'connection.set', instanceId!, { connector: endpointConnector.key });
      return print(`stored (encrypted, key version ${sealed.keyVersion})`);
    }
    case 'connections delete':
      await store.deleteConnection(need(args, 2, 'accountId and instanceId')[0]!, args[1]!);
      await audit(args[0]!, 'connection.delete', args[1]!);
      return print('deleted');
    case 'data-layer enable':
    case 'data-layer disable':
    case 'data-layer status': {
      const [accountId, instanceId] = need(args, 2, 'accountId and instanceId');
      dataLayerConnector(config, instanceId!);
      if (command === 'enable') {
        if (!(await store.getConnection(accountId!, instanceId!))) throw new UsageError(`${accountId}/${instanceId} has no connection: connect it first`);
        const enabled = await store.enableDataLayer(accountId!, instanceId!, new Date());
        await audit(accountId!, 'data_layer.enable', instanceId!);
        return print({ enabled: true, ...enabled });
      }
      if (command === 'disable') await audit(accountId!, 'data_layer.disable', instanceId!);
      if (command === 'disable') return print((await store.disableDataLayer(accountId!, instanceId!)) ? 'disabled; the recorded items were deleted' : 'was not enabled');
      const state = await store.getDataLayer(accountId!, instanceId!);
      return print(state ? { enabled: true, ...state } : { enabled: false });
    }
    case 'fair-use set': {
      const mode = flag(args, '--mode') as FairUseMode | undefined;
      const quotaArg = flag(args, '--quota');
      if (mode && !['off', 'soft', 'hard'].includes(mode)) throw new UsageError('--mode is off, soft or hard');
      const quota = quotaArg === undefined ? undefined : quotaArg === 'default' ? null : Number(quotaArg);
      if (quota !== undefined && quota !== null && (!Number.isInteger(quota) || quota < 0)) throw new UsageError('--quota is a non-negative integer or "default"');
      await store.setFairUse(need(args, 1, 'accountId')[0]!, { ...(mode ? { mode } : {}), ...(quota !== undefined ? { quota } : {}) });
      await audit(args[0]!, 'fair_use.set', args[0]!, { mode, quota: quota === null ? 'default' : quota });
      return print('ok');
    }
    case 'usage': {
      const monthArg = flag(args, '--month');
      if (monthArg !== undefined && !MONTH.test(monthArg)) throw new UsageError(`--month is YYYY-MM with a month from 01 to 12, got "${monthArg}"`);
      const accountId = command;
      if (!accountId) throw new UsageError('missing accountId');
      const account = await store.getAccount(accountId);
      if (!account) throw new UsageError(`no account ${accountId}`);
      const meter = new UsageMeter({ store, timeZone: config.timeZone, defaultQuota: config.fairUse.defaultQuota, flushMs: 60_000, counterTimeoutMs: 1000, log: pino({ level: 'silent' }) });
      if (monthArg) {
        return print(await store.getUsage(accountId, monthArg));
      }
      return print(await meter.usageRecord(account, new Date()));
    }
    case 'keys add': {
      if (config.secretKeys) throw new UsageError('keys come from GATEWAY_SECRET_KEYS here: add a new "<version>:<base64>" entry there (generate one with: openssl rand -base64 32)');
      const file = join(config.dataDir, 'secret.key');
      const { keys } = loadOrCreateKeyFile(file);
      const version = Math.max(...Object.keys(keys).map(Number)) + 1;
      appendFileSync(file, `${version}:${newSecretKey()}\n`);
      return print(`added key version ${version} to ${file}; run "keys reencrypt" after restarting the gateway`);
    }
    case 'keys reencrypt': {
      const vault = await checkedVault(config, store);
      let changed = 0;
      let failed = 0;
      for (const c of await store.listConnections()) {
        if (c.keyVersion === vault.activeVersion) continue;
        try {
          const sealed = vault.seal(vault.open(c.ciphertext, c.accountId, c.instanceId), c.accountId, c.instanceId);
          if (await store.replaceCiphertext(c.accountId, c.instanceId, c.keyVersion, sealed.ciphertext, sealed.keyVersion)) changed++;
        } catch (error) {
          failed++;
          out(`cannot re-encrypt ${c.accountId}/${c.instanceId}: ${error instanceof VaultError ? error.message : 'unreadable'}`);
        }
      }
      print(`re-encrypted ${changed} credential(s) under key version ${vault.activeVersion}${failed ? `; ${failed} failed` : ''}`);
      if (failed) throw new UsageError(`${failed} credential(s) could not be re-encrypted`);
      return;
    }
    default:
      throw new UsageError(group ? `unknown command "${[group, command].filter(Boolean).join(' ')}"` : 'no command given');
  }
}

/**
 * Tells running gateways to re-read the store at once: published on the configured REDIS_PREFIX,
 * the channel every replica of this deployment listens on. False when Redis could not be reached.
 */
export async function publishInvalidation(config: GatewayConfig): Promise<boolean> {
  if (!config.redisUrl) return false;
  const { RedisSharedStore } = await import('#runtime/platform/shared-store.ts');
  const shared = await RedisSharedStore.connect(config.redisUrl, { prefix: config.redisPrefix, timeoutMs: 2000 }).catch(() => undefined);
  if (!shared) return false;
  try {
    await shared.publish('platform-invalidate', String(Date.now()));
    return true;
  } catch {
    return false;
  } finally {
    await shared.close();
  }
}

/**
 * The gateway's side of the admin socket: runs a command against the gateway's own store, then
 * reloads its snapshot (a revoked token is refused at once) and tells other replicas.
 */
export function adminSocketHandler(config: GatewayConfig, store: PlatformStore, refresh: () => Promise<void>): AdminHandler {
  return async ({ argv, actor, input, out }) => {
    try {
      await runCli([...argv], config, store, out, (fields) => input(fields), { actor, source: 'admin socket' });
      await refresh();
      return { code: 0 };
    } catch (error) {
      if (error instanceof ConfigError) return { code: 2, error: `configuration: ${error.message}` };
      return { code: 1, error: error instanceof UsageError ? `${error.message}\n\n${HELP}` : `failed: ${(error as Error).message}` };
    }
  };
}

async function main(): Promise<number> {
  const argv = process.argv.slice(2);
  if (argv.includes('--help') || argv.includes('-h')) {
    console.log(HELP);
    return 0;
  }
  if (argv.length === 0 || argv[0] === 'help') {
    console.log(HELP);
    return argv.length === 0 ? 1 : 0;
  }
  let config: GatewayConfig;
  try {
    config = loadConfig(registry);
  } catch (error) {
    console.error(error instanceof ConfigError ? `configuration: ${error.message}` : String(error));
    return 2;
  }
  // A fresh clone has no data directory yet: make it (private) rather than fail on its lock file.
  mkdirSync(config.dataDir, { recursive: true, mode: 0o700 });
  // A gateway running here serves the CLI over its admin socket: no need to stop it.
  const socket = join(config.dataDir, ADMIN_SOCKET_FILE);
  if (await socketAlive(socket)) {
    try {
      return await runOverSocket(
        socket,
        argv,
        localActor().actor,
        (fields) => stdinCredential(fields as CredentialPrompt[]),
        (line) => console.log(line),
        (line) => console.error(line),
      );
    } catch (error) {
      console.error(`failed: the gateway's admin socket ${socket} did not answer: ${(error as Error).message}`);
      return 1;
    }
  }
  if (!config.databaseUrl && !existsSync(join(config.dataDir, 'db'))) console.error(`note: creating a new embedded database in ${join(config.dataDir, 'db')}`);
  let releaseLock: (() => void) | undefined;
  try {
    if (!config.databaseUrl && makeDataDirPrivate(config.dataDir, DATA_DIR_ENTRIES) > 0)
      console.error(`note: ${config.dataDir} was open to other users; made it private (directories 0700, files 0600)`);
    if (!config.databaseUrl) releaseLock = lockEmbeddedDatabase(join(config.dataDir, 'db'), 'admin CLI');
  } catch (error) {
    console.error((error as Error).message);
    return 1;
  }
  const store = await openStore(config.databaseUrl ? { databaseUrl: config.databaseUrl } : { dataDir: join(config.dataDir, 'db') });
  try {
    await runCli(argv, config, store, (line) => console.log(line), stdinCredential);
    if (config.redisUrl && !(await publishInvalidation(config))) {
      console.error(`note: Redis at ${describeUrl(config.redisUrl)} could not be reached; gateways see the change within SNAPSHOT_REFRESH_MS`);
    }
    return 0;
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(`configuration: ${error.message}`);
      return 2;
    }
    console.error(error instanceof UsageError ? `${error.message}\n\n${HELP}` : `failed: ${(error as Error).message}`);
    return 1;
  } finally {
    await store.close();
    releaseLock?.();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  main().then((code) => process.exit(code));
}
