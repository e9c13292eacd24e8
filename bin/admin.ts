// Admin CLI for operators: every platform operation without the portal.
//   npm run admin -- <command> [arguments]      (npm run admin -- help; <command> --help)
// The commands are a table (bin/admin/commands.ts, one module per group of them); this file runs
// one against the store, or hands it to a running gateway over its admin socket.
// Writes go to the configured store; running gateways pick them up within SNAPSHOT_REFRESH_MS
// (immediately when a shared store is configured).
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { registry } from '#generated/registry.ts';
import { loadConfig } from '#runtime/config.ts';
import { describeUrl } from '#runtime/config-checks.ts';
import { ConfigError, type GatewayConfig } from '#runtime/config-settings.ts';
import { ADMIN_SOCKET_FILE, type AdminHandler, runOverSocket, socketAlive } from '#runtime/platform/admin-socket.ts';
import { auditDetail, recordAudit } from '#runtime/platform/audit.ts';
import { lockEmbeddedDatabase } from '#runtime/platform/embedded-lock.ts';
import { openStore } from '#runtime/platform/open-store.ts';
import { DATA_DIR_ENTRIES, makeDataDirPrivate } from '#runtime/platform/private-files.ts';
import type { PlatformStore } from '#runtime/platform/store.ts';
import { type CliActor, type CommandContext, type CredentialInput, type CredentialPrompt, localActor, UsageError } from './admin/command.ts';
import { findCommand, HELP, helpFor } from './admin/commands.ts';
import { NO_INPUT, stdinCredential } from './admin/credentials.ts';

export type { CliActor, CredentialInput, CredentialPrompt } from './admin/command.ts';
export { localActor, UsageError } from './admin/command.ts';
export { CREDENTIAL_FIELDS, stdinCredential, vaultFor } from './admin/credentials.ts';
export { COMMANDS, HELP } from './admin/commands.ts';

/**
 * Runs one command of the table (`bin/admin/commands.ts`) against the store; `--help` (or `-h`)
 * anywhere prints the command's help instead and touches nothing.
 */
export async function runCli(argv: string[], config: GatewayConfig, store: PlatformStore, out: (line: string) => void, input: CredentialInput = NO_INPUT, who: CliActor = localActor()): Promise<void> {
  if (argv.includes('--help') || argv.includes('-h')) return out(helpFor(argv));
  const found = findCommand(argv);
  if (!found) {
    const [group, command] = argv;
    throw new UsageError(group ? `unknown command "${[group, command].filter(Boolean).join(' ')}"` : 'no command given');
  }
  const context: CommandContext = {
    config,
    store,
    input,
    out,
    print: (value) => out(typeof value === 'string' ? value : JSON.stringify(value, null, 2)),
    audit: (accountId, action, target, detail = {}) => recordAudit(store, { accountId, actor: who.actor, action, target, detail: auditDetail(detail), source: who.source }),
    accountOfUser: async (userId) => (await store.users.getUser(userId))?.accountId ?? null,
  };
  await found.command.run(context, [...found.args]);
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
  // Help needs no configuration and no store: `<command> --help`, `help [<command>]`, or nothing.
  if (argv.includes('--help') || argv.includes('-h')) {
    console.log(helpFor(argv));
    return 0;
  }
  if (argv.length === 0 || argv[0] === 'help') {
    console.log(argv.length > 1 ? helpFor(argv.slice(1)) : HELP);
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
