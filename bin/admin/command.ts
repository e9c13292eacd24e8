// What every admin command shares: its entry in the command table (name, arguments, one-line
// summary, run), the context a run gets (store, configuration, output, audit), and the small
// argument helpers. A command is one entry of the table in `commands.ts`; nothing switches over names.
import { userInfo } from 'node:os';
import { registry, type ConnectorKey } from '#generated/registry.ts';
import type { GatewayConfig } from '#runtime/config-settings.ts';
import type { PlatformStore } from '#runtime/platform/store.ts';

/** A mistake in the command line: the message, then the usage. Exit code 1. */
export class UsageError extends Error {}

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
  /** One line of output, as is. */
  readonly out: (line: string) => void;
  /** A string as is, anything else as indented JSON. */
  print(value: unknown): void;
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

const isConnectorKey = (key: string): key is ConnectorKey => Object.hasOwn(registry, key);

export function connectorKey(key: string): ConnectorKey {
  if (!isConnectorKey(key)) throw new UsageError(`unknown connector "${key}" (known: ${Object.keys(registry).join(', ')})`);
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
