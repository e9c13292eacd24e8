// The admin socket: a running gateway serves the admin CLI over a unix socket in its data
// directory (mode 0600, in a 0700 directory: only the gateway's own OS user reaches it), so every
// CLI command works while the gateway runs, on the embedded database too (which one process owns).
// One connection carries one command as newline-delimited JSON:
//   server → {"type":"hello","store":"…"}     first, on every connection: the store it serves
//   client → {"type":"run","argv":[…],"actor":"cli:<user>"}
//   server → {"type":"input","fields":[…]}    only when the command reads a credential
//   client → {"type":"input","value":"field=value\n…"}
//   server → {"type":"out","line":"…"}        zero or more
//   server → {"type":"done","code":0|1|2,"error"?:"…"}
import { chmodSync, existsSync, rmSync } from 'node:fs';
import { connect, createServer, type Server, type Socket } from 'node:net';

export const ADMIN_SOCKET_FILE = 'admin.sock';

export interface AdminRun {
  readonly argv: readonly string[];
  /** The CLI's operating-system user, for the audit log (the socket admits only the gateway's user). */
  readonly actor: string;
  /** Asks the CLI for a credential (its terminal or standard input). */
  readonly input: (fields: readonly unknown[]) => Promise<string>;
  readonly out: (line: string) => void;
}

/** Runs one command; answers the exit code and, on failure, the message for standard error. */
export type AdminHandler = (run: AdminRun) => Promise<{ code: number; error?: string }>;

const MAX_LINE = 1024 * 1024;

/** Splits a socket's data into JSON messages (one per line), refusing lines past 1 MiB. */
function messages(socket: Socket, onMessage: (message: Record<string, unknown>) => void, onBad: () => void): void {
  let buffer = '';
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => {
    buffer += chunk;
    if (buffer.length > MAX_LINE) {
      onBad();
      return;
    }
    for (let nl = buffer.indexOf('\n'); nl >= 0; nl = buffer.indexOf('\n')) {
      const line = buffer.slice(0, nl);
      buffer = buffer.slice(nl + 1);
      try {
        const parsed = JSON.parse(line) as unknown;
        if (parsed && typeof parsed === 'object' && !Array.isArray(parsed))
          onMessage(parsed as Record<string, unknown>);
        else onBad();
      } catch {
        onBad();
      }
    }
  });
}

const send = (socket: Socket, message: Record<string, unknown>) => {
  if (!socket.destroyed) socket.write(`${JSON.stringify(message)}\n`);
};

/** Whether a gateway answers on the socket (a stale file from a crashed process does not). */
export function socketAlive(path: string): Promise<boolean> {
  if (!existsSync(path)) return Promise.resolve(false);
  return new Promise((resolve) => {
    const socket = connect(path);
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/**
 * Serves the admin CLI on `path` (mode 0600); a stale socket file is replaced. `store` names the store it serves
 * (describeStore).
 */
export async function serveAdminSocket(
  path: string,
  handler: AdminHandler,
  hello: { readonly store: string },
): Promise<{ close(): Promise<void> }> {
  if (await socketAlive(path)) throw new Error(`another gateway serves the admin socket ${path}`);
  rmSync(path, { force: true });
  const server: Server = createServer((socket) => {
    let started = false;
    let pendingInput: ((value: string) => void) | undefined;
    send(socket, { type: 'hello', store: hello.store });
    messages(
      socket,
      (message) => {
        if (message.type === 'input' && pendingInput && typeof message.value === 'string') {
          const resolve = pendingInput;
          pendingInput = undefined;
          resolve(message.value);
          return;
        }
        if (
          message.type !== 'run' ||
          started ||
          !Array.isArray(message.argv) ||
          !message.argv.every((a) => typeof a === 'string')
        ) {
          send(socket, { type: 'done', code: 2, error: 'malformed admin request' });
          socket.end();
          return;
        }
        started = true;
        const actor = typeof message.actor === 'string' ? message.actor.slice(0, 100) : 'cli:unknown';
        void handler({
          argv: message.argv as string[],
          actor,
          out: (line) => send(socket, { type: 'out', line }),
          input: (fields) =>
            new Promise<string>((resolve, reject) => {
              pendingInput = resolve;
              socket.once('close', () => reject(new Error('the admin CLI went away')));
              send(socket, { type: 'input', fields });
            }),
        })
          .then(
            (result) => send(socket, { type: 'done', ...result }),
            (error: unknown) => send(socket, { type: 'done', code: 1, error: `failed: ${(error as Error)?.message}` }),
          )
          .finally(() => socket.end());
      },
      () => {
        send(socket, { type: 'done', code: 2, error: 'malformed admin request' });
        socket.destroy();
      },
    );
    socket.on('error', () => {});
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(path, () => resolve());
  });
  chmodSync(path, 0o600);
  server.unref();
  return {
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        rmSync(path, { force: true });
      }),
  };
}

/** Runs a command in the gateway serving `path`; answers its exit code (output goes to `out`/`err`). */
export function runOverSocket(
  path: string,
  argv: readonly string[],
  actor: string,
  input: (fields: readonly unknown[]) => Promise<string>,
  out: (line: string) => void,
  err: (line: string) => void,
): Promise<number> {
  return new Promise((resolve, reject) => {
    const socket = connect(path);
    let done = false;
    socket.once('error', reject);
    socket.once('connect', () => send(socket, { type: 'run', argv, actor }));
    messages(
      socket,
      (message) => {
        if (message.type === 'out' && typeof message.line === 'string') out(message.line);
        else if (message.type === 'input') {
          input(Array.isArray(message.fields) ? message.fields : []).then(
            (value) => send(socket, { type: 'input', value }),
            (error: unknown) => {
              err(String((error as Error)?.message ?? error));
              socket.destroy();
            },
          );
        } else if (message.type === 'done') {
          done = true;
          if (typeof message.error === 'string') err(message.error);
          resolve(typeof message.code === 'number' ? message.code : 1);
          socket.end();
        }
      },
      () => socket.destroy(),
    );
    socket.once('close', () => {
      if (!done) reject(new Error('the gateway closed the admin socket before answering'));
    });
  });
}
