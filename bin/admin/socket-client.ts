// The admin CLI's side of the admin socket before it sends anything (docs/decisions/operations.md,
// 'The admin CLI checks the socket before it sends anything'): the data directory and the socket
// must be the CLI user's own and closed to everyone else, and the gateway behind the socket must
// serve the store the CLI's configuration names.
import { lstatSync, type Stats } from 'node:fs';
import { connect } from 'node:net';
import { RefusedError } from './command.ts';

const GROUP_OR_OTHER = 0o077;
const mode = (stat: Stats) => `0${(stat.mode & 0o777).toString(8)}`;

/** Refuses a data directory another OS user owns: whatever is in it (the socket) could be theirs. */
export function checkDataDirOwner(dataDir: string): void {
  const uid = process.getuid?.();
  const stat = lstatSync(dataDir);
  if (!stat.isDirectory()) throw new RefusedError(`DATA_DIR ${dataDir} is not a directory`);
  if (uid !== undefined && stat.uid !== uid)
    throw new RefusedError(
      `DATA_DIR ${dataDir} belongs to uid ${stat.uid}, not to you (uid ${uid}): run the admin CLI as the ` +
        "gateway's user",
    );
}

/**
 * Whether an admin socket is at `path`, after checking it: a socket, owned by this user, with no
 * permission for group or others. Anything else is refused before a byte is sent over it: another
 * local user's socket would receive the commands and the credentials piped to them.
 */
export function checkedSocket(path: string): boolean {
  let stat: Stats;
  try {
    stat = lstatSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw error;
  }
  const uid = process.getuid?.();
  const refuse = (why: string) =>
    new RefusedError(
      `${path} ${why}: refusing to send anything over it (stop the process that made it, or remove it if no ` +
        'gateway runs here)',
    );
  if (!stat.isSocket()) throw refuse('is not a socket');
  if (uid !== undefined && stat.uid !== uid) throw refuse(`belongs to uid ${stat.uid}, not to you (uid ${uid})`);
  if ((stat.mode & GROUP_OR_OTHER) !== 0)
    throw refuse(`is open to other users (mode ${mode(stat)}, the gateway makes it 0600)`);
  return true;
}

/**
 * The store the gateway behind the socket serves, from its greeting (the first message of every
 * connection, runtime/operations/admin-socket.ts); undefined when nothing greets within the deadline
 * (a stale file of a stopped gateway).
 */
export function socketStore(path: string, timeoutMs = 5000): Promise<string | undefined> {
  return new Promise((resolve) => {
    const socket = connect(path);
    let buffer = '';
    const finish = (store: string | undefined) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(store);
    };
    const timer = setTimeout(() => finish(undefined), timeoutMs);
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      buffer += chunk;
      const nl = buffer.indexOf('\n');
      if (nl < 0) return buffer.length > 64 * 1024 ? finish(undefined) : undefined;
      try {
        const hello = JSON.parse(buffer.slice(0, nl)) as { type?: unknown; store?: unknown };
        finish(hello.type === 'hello' && typeof hello.store === 'string' ? hello.store : undefined);
      } catch {
        finish(undefined);
      }
    });
    socket.once('error', () => finish(undefined));
    socket.once('close', () => finish(undefined));
  });
}

/** The refusal of a socket whose gateway serves another store than the configured one. */
export function otherStore(path: string, theirs: string, mine: string): RefusedError {
  return new RefusedError(
    `the gateway on ${path} serves ${theirs}, but this configuration names ${mine}: refusing to guess which one ` +
      "you mean. Give the CLI the gateway's DATABASE_URL, or give each store its own DATA_DIR",
  );
}
