// The admin CLI's command table: every command once, in the order `help` lists them. The help
// texts, the dispatch and each command's own `--help` are read from it.
import { ACCOUNT_COMMANDS } from './account-commands.ts';
import { CALL_LOG_COMMANDS } from './call-log-commands.ts';
import { type AdminCommand, CONNECTOR_KEYS_LINE, EXIT_CODES_LINE } from './command.ts';
import { CONNECTION_COMMANDS } from './connection-commands.ts';
import { CREDENTIAL_FIELDS_LINE } from './credentials.ts';
import { SUBSCRIPTION_COMMANDS } from './subscription-commands.ts';
import { TOKEN_COMMANDS } from './token-commands.ts';
import { TOOL_SETTINGS_COMMANDS } from './tool-settings-commands.ts';
import { USER_COMMANDS } from './user-commands.ts';

/** The commands of a module whose first word is the group's. */
const group = (commands: readonly AdminCommand[], name: string) =>
  commands.filter((c) => c.name.split(' ')[0] === name);

/** Every command, in the order of the help (the order operators met them in). */
export const COMMANDS: readonly AdminCommand[] = [
  ...group(ACCOUNT_COMMANDS, 'accounts'),
  ...group(ACCOUNT_COMMANDS, 'users'),
  ...USER_COMMANDS,
  ...group(ACCOUNT_COMMANDS, 'sessions'),
  ...group(ACCOUNT_COMMANDS, 'audit'),
  ...TOKEN_COMMANDS,
  ...group(ACCOUNT_COMMANDS, 'terms'),
  ...group(SUBSCRIPTION_COMMANDS, 'subscriptions'),
  ...group(SUBSCRIPTION_COMMANDS, 'seats'),
  ...group(CONNECTION_COMMANDS, 'connections'),
  ...group(CONNECTION_COMMANDS, 'data-layer'),
  ...TOOL_SETTINGS_COMMANDS,
  ...group(SUBSCRIPTION_COMMANDS, 'fair-use'),
  ...group(SUBSCRIPTION_COMMANDS, 'usage'),
  ...CALL_LOG_COMMANDS,
  ...group(CONNECTION_COMMANDS, 'keys'),
];

const BY_NAME = new Map(COMMANDS.map((c) => [c.name, c]));

/** The command argv names, and the words after its name; undefined when it names none. */
export function findCommand(
  argv: readonly string[],
): { readonly command: AdminCommand; readonly args: string[] } | undefined {
  const [group, command] = argv;
  if (group === undefined) return undefined;
  const found = command === undefined ? undefined : BY_NAME.get(`${group} ${command}`);
  if (found) return { command: found, args: argv.slice(2) };
  // A one-word command (usage) takes its first argument where others have their second word.
  const single = BY_NAME.get(group);
  return single && { command: single, args: argv.slice(1) };
}

export const PROGRAM = 'npm run admin --';
const SUMMARY_COLUMN = 50;

export const usageLine = (c: AdminCommand) => `${c.name}${c.args ? ` ${c.args}` : ''}`;

/** A listing line: the usage, then the summary from a common column (on the next line after a long usage). */
function listed(c: AdminCommand): string {
  const left = `  ${usageLine(c)}`;
  return left.length <= SUMMARY_COLUMN - 2
    ? `${left.padEnd(SUMMARY_COLUMN)}${c.summary}`
    : `${left}\n${' '.repeat(SUMMARY_COLUMN)}${c.summary}`;
}

export const HELP = `Usage: ${PROGRAM} <command> [arguments]

${COMMANDS.map(listed).join('\n')}

${PROGRAM} <command> --help explains one command: what it does, takes and prints.
--json (with any command) prints one JSON object on standard output, for a result or an error:
{"ok":true,"store":…,"command":…,"result":…} or {"ok":false,…,"error":{"kind":…,"message":…,"exitCode":…}}.
${EXIT_CODES_LINE}
${CONNECTOR_KEYS_LINE}
${CREDENTIAL_FIELDS_LINE}
Configuration (database, keys) comes from the same environment and config file as the gateway; the
first line on standard error names the store a command works on. While a gateway runs with the same
DATA_DIR, commands go to it over its admin socket (<DATA_DIR>/admin.sock, mode 0600), so nothing
needs stopping; a socket of a gateway on another store than the configured one is refused.`;

/** One command's help: its usage line, its summary and its details. */
export function commandHelp(c: AdminCommand): string {
  return [
    `Usage: ${PROGRAM} ${usageLine(c)}`,
    '',
    `${c.summary[0]!.toUpperCase()}${c.summary.slice(1)}.`,
    ...(c.details ?? []),
  ].join('\n');
}

/**
 * The help `--help` (or `help <command>`) asks for: the command's own; for a group's first word
 * (`tokens --help`, or a word it does not have), the group's commands; otherwise every command.
 */
export function helpFor(argv: readonly string[]): string {
  const words = argv.filter((a) => a !== '--help' && a !== '-h');
  const found = findCommand(words);
  if (found) return commandHelp(found.command);
  const commands = group(COMMANDS, words[0] ?? '');
  if (commands.length > 0)
    return (
      `Usage: ${PROGRAM} ${words[0]} <command> ` +
      `[arguments]\n\n${commands.map(listed).join('\n')}\n\nEach command explains itself: ` +
      `${PROGRAM} ${commands[0]!.name} --help`
    );
  return HELP;
}
