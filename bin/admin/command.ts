// What every admin command shares: its entry in the command table (name, arguments, one-line
// summary, run), the context a run gets (store, configuration, output, audit), and the small
// argument helpers. A command is one entry of the table in `commands.ts`; nothing switches over names.
import { userInfo } from 'node:os';
import { registry, type ConnectorKey } from '#generated/registry.ts';
import type { GatewayConfig } from '#runtime/config/settings.ts';
import type { PlatformStore } from '#runtime/store/store.ts';

/**
 * A command that ends without doing what was asked, for a reason the operator can act on: its
 * message (one short line) and its exit code (docs/decisions/operations.md, 'The admin CLI names its
 * store, answers JSON and exits with a code per kind of failure'). Anything else is a failure (1).
 */
export class CommandError extends Error {
  readonly exitCode: number = 1;
  readonly kind: string = 'failure';
}

/** A mistake in the command line: the message, then the command's own usage line. Exit code 2. */
export class UsageError extends CommandError {
  override readonly exitCode: number = 2;
  override readonly kind: string = 'usage';
}

/** A user, account, connection, token or grant that does not exist. Exit code 3. */
export class NotFoundError extends CommandError {
  override readonly exitCode: number = 3;
  override readonly kind: string = 'not_found';
}

/**
 * A well-formed command a rule refuses (the last administrator, an unsubscribed connector, an unsafe socket). Exit code
 * 4.
 */
export class RefusedError extends CommandError {
  override readonly exitCode: number = 4;
  override readonly kind: string = 'refused';
}

/** The exit codes, for the help and the JSON answer. */
export const EXIT_CODES_LINE =
  'Exit codes: 0 done, 1 failure, 2 usage (the command line), 3 not found, 4 refused, 5 configuration.';

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

/** Who runs the CLI, for the audit log: the operating-system user, and where the command came from. */
export interface CliActor {
  readonly actor: string;
  readonly source: string;
}

export const localActor = (source = 'local'): CliActor => ({ actor: `cli:${userInfo().username}`, source });

/** An audit entry's detail: ids, names, on/off (never a secret). */
export type AuditDetail = Record<string, string | number | boolean | null | undefined>;

/** What a command's run receives besides its arguments. */
export interface CommandContext {
  readonly config: GatewayConfig;
  readonly store: PlatformStore;
  /** The credential of `connections set` (standard input, or the admin socket's client). */
  readonly input: CredentialInput;
  /**
   * A line beside the result (a credential that could not be re-encrypted): standard error, or the JSON answer's
   * `notes`.
   */
  note(line: string): void;
  /**
   * The command's result: `value` is its data (the JSON answer's `result`); on a terminal `text`
   * when given, otherwise the value (a string as is, anything else as indented JSON).
   */
  print(value: unknown, text?: string): void;
  /** The audit entry of a change (never a secret: ids, names, on/off). */
  audit(accountId: string | null, action: string, target: string, detail?: AuditDetail): Promise<void>;
  /** The account of a user, null when the user is unknown. */
  accountOfUser(userId: string): Promise<string | null>;
}

/** One admin command: the table entry its help and its dispatch read. */
export interface AdminCommand {
  /** The words that name it: `tokens issue`, `usage`. */
  readonly name: string;
  /** Its arguments as the usage line shows them (`<userId> [--label <label>]`), '' for none. */
  readonly args: string;
  /** One line: what it does (the `help` listing). */
  readonly summary: string;
  /** More lines for its own `--help`: what it prints, what it needs. */
  readonly details?: readonly string[];
  /** Runs it with the words after its name. */
  run(ctx: CommandContext, args: string[]): Promise<void>;
}

/** The value of `--name <value>`, removed from args; undefined when the flag is absent. */
export function flag(args: string[], name: string): string | undefined {
  const i = args.indexOf(name);
  if (i < 0) return undefined;
  const value = args[i + 1];
  if (value === undefined) throw new UsageError(`${name} needs a value`);
  args.splice(i, 2);
  return value;
}

/** The arguments, when there are at least n of them. */
export function need(args: string[], n: number, what: string): string[] {
  if (args.length < n) throw new UsageError(`missing ${what}`);
  return args;
}

/** Whether `--yes` was given (removed from args): destructive commands need it. */
export function confirmed(args: string[], what: string): void {
  const i = args.indexOf('--yes');
  if (i < 0) throw new UsageError(`${what} cannot be undone: add --yes to confirm`);
  args.splice(i, 1);
}

/** Words left over after a command's arguments are a mistake, never ignored. */
export function noMore(args: readonly string[], n: number): void {
  if (args.length > n) throw new UsageError(`unexpected argument "${args[n]}"`);
}

const isConnectorKey = (key: string): key is ConnectorKey => Object.hasOwn(registry, key);

export function connectorKey(key: string): ConnectorKey {
  if (!isConnectorKey(key))
    throw new UsageError(`unknown connector "${key}" (known: ${Object.keys(registry).join(', ')})`);
  return key;
}

export function onOff(value: string | undefined): boolean {
  if (value === 'on') return true;
  if (value === 'off') return false;
  throw new UsageError('expected on or off');
}

export const EMAIL = /^[^\s@]+@[^\s@.]+(\.[^\s@.]+)+$/;
export const MONTH = /^\d{4}-(0[1-9]|1[0-2])$/;

/** The line the help of a command taking `<connector>` adds. */
export const CONNECTOR_KEYS_LINE = `<connector> is a connector key: ${Object.keys(registry).join(', ')}.`;

/** The account, or "no such account" (exit 3). */
export async function existingAccount(ctx: Pick<CommandContext, 'store'>, accountId: string) {
  const account = await ctx.store.accounts.getAccount(accountId);
  if (!account) throw new NotFoundError(`no such account ${accountId}`);
  return account;
}

/** The user, or "no such user" (exit 3). */
export async function existingUser(ctx: Pick<CommandContext, 'store'>, userId: string) {
  const user = await ctx.store.users.getUser(userId);
  if (!user) throw new NotFoundError(`no such user ${userId}`);
  return user;
}
