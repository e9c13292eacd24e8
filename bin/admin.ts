// Admin CLI for operators: every platform operation without the portal.
//   npm run admin -- <command> [arguments] [--json]      (npm run admin -- help; <command> --help)
// The commands are a table (bin/admin/commands.ts, one module per group of them); this file runs
// one against the store, or hands it to a running gateway over its admin socket.
// Writes go to the configured store; running gateways pick them up within SNAPSHOT_REFRESH_MS
// (immediately when a shared store is configured).
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { registry } from '#generated/registry.ts';
import { loadConfig } from '#runtime/config/config.ts';
import { describeStore, describeUrl } from '#runtime/config/checks.ts';
import { ConfigError, type GatewayConfig } from '#runtime/config/settings.ts';
import { ADMIN_SOCKET_FILE, type AdminHandler, runOverSocket } from '#runtime/operations/admin-socket.ts';
import { auditDetail, recordAudit } from '#runtime/operations/audit.ts';
import { lockEmbeddedDatabase } from '#runtime/store/embedded-lock.ts';
import { openStore } from '#runtime/store/open-store.ts';
import { DATA_DIR_ENTRIES, makeDataDirPrivate } from '#runtime/store/private-files.ts';
import type { PlatformStore } from '#runtime/store/store.ts';
import {
  type CliActor,
  CommandError,
  type CommandContext,
  type CredentialInput,
  type CredentialPrompt,
  localActor,
  RefusedError,
  UsageError,
} from './admin/command.ts';
import { findCommand, HELP, helpFor, PROGRAM, usageLine } from './admin/commands.ts';
import { NO_INPUT, stdinCredential } from './admin/credentials.ts';
import { checkDataDirOwner, checkedSocket, otherStore, socketStore } from './admin/socket-client.ts';

export type { CliActor, CredentialInput, CredentialPrompt } from './admin/command.ts';
export { CommandError, localActor, NotFoundError, RefusedError, UsageError } from './admin/command.ts';
export { CREDENTIAL_FIELDS, stdinCredential, vaultFor } from './admin/credentials.ts';
export { COMMANDS, HELP } from './admin/commands.ts';

/**
 * Runs one command of the table (`bin/admin/commands.ts`) against the store; `--help` (or `-h`)
 * anywhere prints the command's help instead and touches nothing. Answers the command's result (its
 * data); on a terminal (`--json` absent) it is printed through `out`. Throws a CommandError (or any
 * error) when the command ends without doing what was asked.
 */
export async function runCli(
  argv: string[],
  config: GatewayConfig,
  store: PlatformStore,
  out: (line: string) => void,
  input: CredentialInput = NO_INPUT,
  who: CliActor = localActor(),
  note: (line: string) => void = out,
): Promise<unknown> {
  if (argv.includes('--help') || argv.includes('-h')) return out(helpFor(argv));
  const json = argv.includes('--json');
  const words = argv.filter((a) => a !== '--json');
  const found = findCommand(words);
  if (!found) {
    const [group, command] = words;
    throw new UsageError(
      group ? `unknown command "${[group, command].filter(Boolean).join(' ')}"` : 'no command given',
    );
  }
  let result: unknown;
  const context: CommandContext = {
    config,
    store,
    input,
    note,
    print: (value, text) => {
      result = value;
      if (!json) out(text ?? (typeof value === 'string' ? value : JSON.stringify(value, null, 2)));
    },
    audit: (accountId, action, target, detail = {}) =>
      recordAudit(store, {
        accountId,
        actor: who.actor,
        action,
        target,
        detail: auditDetail(detail),
        source: who.source,
      }),
    accountOfUser: async (userId) => (await store.users.getUser(userId))?.accountId ?? null,
  };
  await found.command.run(context, [...found.args]);
  return result;
}

/** Where a command runs: the store (describeStore) and how the CLI reaches it. */
export interface CommandPlace {
  readonly store: string;
  readonly via: 'direct' | 'admin socket';
}

/**
 * The exit code and kind of an error (docs/decisions/operations.md, 'The admin CLI names its store, answers JSON and
 * exits with a code per kind of failure').
 */
function classify(error: unknown): { kind: string; exitCode: number; message: string } {
  if (error instanceof CommandError) return { kind: error.kind, exitCode: error.exitCode, message: error.message };
  if (error instanceof ConfigError)
    return { kind: 'configuration', exitCode: 5, message: `configuration: ${error.message}` };
  return { kind: 'failure', exitCode: 1, message: `failed: ${(error as Error)?.message ?? String(error)}` };
}

/** The short text of an error on a terminal: the message, and for a usage error the command's own usage line. */
function errorText(argv: readonly string[], error: { kind: string; message: string }): string {
  if (error.kind !== 'usage') return error.message;
  const found = findCommand(argv.filter((a) => a !== '--json'));
  if (!found) return `${error.message}\n${PROGRAM} help lists the commands`;
  return (
    `${error.message}\nUsage: ${PROGRAM} ${usageLine(found.command)}   (${PROGRAM} ${found.command.name} --help ` +
    'explains it)'
  );
}

/** The JSON answer of a command that could not run (no store, a refused socket, a bad configuration). */
export function jsonFailure(argv: readonly string[], place: CommandPlace | undefined, error: unknown): string {
  const found = findCommand(argv.filter((a) => a !== '--json'));
  const { kind, exitCode, message } = classify(error);
  return JSON.stringify({
    ok: false,
    ...(place ? { store: place.store, via: place.via } : {}),
    command: found?.command.name ?? null,
    error: { kind, message, exitCode },
  });
}

/**
 * Runs a command as the CLI answers it: its output (one JSON object with --json), a short error on
 * `err` (or in the JSON object), and the exit code.
 */
export async function runCommand(
  argv: readonly string[],
  config: GatewayConfig,
  store: PlatformStore,
  place: CommandPlace,
  io: { readonly out: (line: string) => void; readonly err: (line: string) => void },
  input: CredentialInput = NO_INPUT,
  who: CliActor = localActor(),
): Promise<number> {
  const json = argv.includes('--json') && !argv.includes('--help') && !argv.includes('-h');
  const notes: string[] = [];
  try {
    const result = await runCli(
      [...argv],
      config,
      store,
      io.out,
      input,
      who,
      json ? (line) => notes.push(line) : io.err,
    );
    if (json)
      io.out(
        JSON.stringify({
          ok: true,
          store: place.store,
          via: place.via,
          command: findCommand(argv.filter((a) => a !== '--json'))?.command.name ?? null,
          result: result ?? null,
          ...(notes.length ? { notes } : {}),
        }),
      );
    return 0;
  } catch (error) {
    const failure = classify(error);
    if (json) io.out(jsonFailure(argv, place, error));
    else io.err(errorText(argv, failure));
    return failure.exitCode;
  }
}

/**
 * Tells running gateways to re-read the store at once: published on the configured REDIS_PREFIX,
 * the channel every replica of this deployment listens on. False when Redis could not be reached.
 */
export async function publishInvalidation(config: GatewayConfig): Promise<boolean> {
  if (!config.redisUrl) return false;
  const { RedisSharedStore } = await import('#runtime/store/shared-store.ts');
  const shared = await RedisSharedStore.connect(config.redisUrl, { prefix: config.redisPrefix, timeoutMs: 2000 }).catch(
    () => undefined,
  );
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
export function adminSocketHandler(
  config: GatewayConfig,
  store: PlatformStore,
  refresh: () => Promise<void>,
): AdminHandler {
  return async ({ argv, actor, input, out }) => {
    const errors: string[] = [];
    const place: CommandPlace = { store: describeStore(config), via: 'admin socket' };
    const code = await runCommand(
      argv,
      config,
      store,
      place,
      { out, err: (line) => errors.push(line) },
      (fields) => input(fields),
      { actor, source: 'admin socket' },
    );
    if (code === 0) await refresh();
    return errors.length ? { code, error: errors.join('\n') } : { code };
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
    return argv.length === 0 ? 2 : 0;
  }
  const json = argv.includes('--json');
  let place: CommandPlace | undefined;
  /** A failure before the command runs: short on standard error, or the JSON answer. */
  const failed = (error: unknown) => {
    if (json) console.log(jsonFailure(argv, place, error));
    else
      console.error(
        error instanceof CommandError
          ? error.message
          : error instanceof ConfigError
            ? `configuration: ${error.message}`
            : `failed: ${(error as Error).message}`,
      );
    return error instanceof CommandError ? error.exitCode : error instanceof ConfigError ? 5 : 1;
  };
  const announce = (line: string) => {
    if (!json) console.error(line);
  };
  let config: GatewayConfig;
  try {
    config = loadConfig(registry);
  } catch (error) {
    return failed(error);
  }
  place = { store: describeStore(config), via: 'direct' };
  const socket = join(config.dataDir, ADMIN_SOCKET_FILE);
  let gatewayStore: string | undefined;
  try {
    // A fresh clone has no data directory yet: make it (private) rather than fail on its lock file.
    mkdirSync(config.dataDir, { recursive: true, mode: 0o700 });
    checkDataDirOwner(config.dataDir);
    // Private in every mode (the admin socket is here even when the store is PostgreSQL).
    if (makeDataDirPrivate(config.dataDir, DATA_DIR_ENTRIES) > 0)
      announce(`note: ${config.dataDir} was open to other users; made it private (directories 0700, files 0600)`);
    // A gateway running here serves the CLI over its admin socket: no need to stop it. Its owner,
    // its mode and the store it serves are checked before anything is sent over it.
    if (checkedSocket(socket)) gatewayStore = await socketStore(socket);
    if (gatewayStore !== undefined && gatewayStore !== place.store) throw otherStore(socket, gatewayStore, place.store);
  } catch (error) {
    return failed(error);
  }
  if (gatewayStore !== undefined) {
    place = { store: gatewayStore, via: 'admin socket' };
    announce(`store: ${gatewayStore} (through the running gateway's admin socket ${socket})`);
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
      return failed(new Error(`the gateway's admin socket ${socket} did not answer: ${(error as Error).message}`));
    }
  }
  announce(
    `store: ${place.store}${config.databaseUrl || existsSync(join(config.dataDir, 'db')) ? '' : ' (new: creating it)'}`,
  );
  let releaseLock: (() => void) | undefined;
  try {
    if (!config.databaseUrl) releaseLock = lockEmbeddedDatabase(join(config.dataDir, 'db'), 'admin CLI');
  } catch (error) {
    return failed(new RefusedError((error as Error).message));
  }
  let store: PlatformStore;
  try {
    store = await openStore(
      config.databaseUrl ? { databaseUrl: config.databaseUrl } : { dataDir: join(config.dataDir, 'db') },
    );
  } catch (error) {
    releaseLock?.();
    return failed(error);
  }
  try {
    const code = await runCommand(
      argv,
      config,
      store,
      place,
      { out: (line) => console.log(line), err: (line) => console.error(line) },
      stdinCredential,
    );
    if (code === 0 && config.redisUrl && !(await publishInvalidation(config))) {
      announce(
        `note: Redis at ${describeUrl(config.redisUrl)} could not be reached; gateways see the change within ` +
          'SNAPSHOT_REFRESH_MS',
      );
    }
    return code;
  } finally {
    await store.close();
    releaseLock?.();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  main().then((code) => process.exit(code));
}
