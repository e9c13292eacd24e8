// The one entry of `npm start`, `npm test`, `npm run serve|admin|bench` (package.json), so each works
// as the very first command on a fresh clone with any Node >= 20 and npm on PATH:
//   1. a Node older than 24 gets Node 24 from the npm registry into ~/.node24 (no root; the place
//      .ci/run and the README always used), once, and the command runs on it;
//   2. node_modules that is missing or differs from package-lock.json gets `npm ci` (one line says why);
//   3. then the command itself runs with Node 24 and node_modules/.bin first on PATH: its exit status
//      and signals are passed through (Ctrl-C on `npm start` stops the gateway cleanly), and the
//      command is stopped when this process's parent goes away (see run() below).
// When nothing is to do, it reads two lockfiles and starts the command: no npm, no network.
// Plain JavaScript with node: built-ins only, on purpose: it runs on Node 20 before any install.
//
//   node bin/run.mjs <file> [args…]                 run a file on Node 24
//   node bin/run.mjs -c "<command line>" [args…]    run a shell command line (steps joined by &&)
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, readFileSync, realpathSync } from 'node:fs';
import { constants, homedir } from 'node:os';
import { basename, delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { WANTED_NODE_MAJOR, childCommand, installReason, needsNode, nodeMajor, prependPath } from './bootstrap.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const windows = process.platform === 'win32';

// A reader that went away (the npm that was killed held the pipe) must not crash us mid-stop.
process.stderr.on('error', () => {});

/** Our own lines go to stderr, so a command's standard output stays its own. */
function say(line) {
  process.stderr.write(`${line}\n`);
}

function readText(path) {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    if (error.code === 'ENOENT') return undefined;
    throw error;
  }
}

/** Runs npm with the given Node: the npm that runs this script (npm_execpath), else npm on PATH. */
function npm(args, { node, env, cwd }) {
  const cli = process.env.npm_execpath;
  const result =
    cli && /npm-cli\.[cm]?js$/.test(basename(cli))
      ? spawnSync(node, [cli, ...args], { stdio: 'inherit', env, cwd })
      : spawnSync(windows ? 'npm.cmd' : 'npm', args, { stdio: 'inherit', env, cwd, shell: windows });
  return result.status === 0;
}

/** The major of the Node installed under prefix (0: none): the package's version, else asking the binary. */
function installedMajor(prefix, bin, { ask }) {
  if (!existsSync(bin)) return 0;
  if (!ask) {
    const manifest = readText(join(prefix, windows ? '' : 'lib', 'node_modules', 'node', 'package.json'));
    try {
      if (manifest) return nodeMajor(JSON.parse(manifest).version);
    } catch {
      // fall through to asking the binary
    }
  }
  try {
    return nodeMajor(
      execFileSync(bin, ['-p', 'process.versions.node'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }),
    );
  } catch {
    return 0;
  }
}

/** The Node 24 executable: this one, or ~/.node24's (installed from the npm registry when absent). */
function node24() {
  if (!needsNode(process.versions.node)) return process.execPath;
  const prefix = join(homedir(), '.node24');
  const bin = windows ? join(prefix, 'node_modules', 'node', 'bin', 'node.exe') : join(prefix, 'bin', 'node');
  if (installedMajor(prefix, bin, { ask: false }) >= WANTED_NODE_MAJOR) return bin;
  say(
    `Node ${process.versions.node} is older than ${WANTED_NODE_MAJOR}: getting Node ` +
      `${WANTED_NODE_MAJOR} from the npm registry into ${prefix} (once)`,
  );
  mkdirSync(prefix, { recursive: true });
  const install = ['install', '--global', '--prefix', prefix, `node@${WANTED_NODE_MAJOR}`];
  // The package's install script fetches the platform's binary; an npm that does not run install
  // scripts by default needs to be told to (as .ci/run does).
  // The environment carries the quiet settings to the npm that the install script starts.
  const env = {
    ...process.env,
    npm_config_update_notifier: 'false',
    npm_config_fund: 'false',
    npm_config_audit: 'false',
    npm_config_loglevel: 'error',
  };
  for (const extra of [[], ['--allow-scripts=node']]) {
    npm([...install, ...extra], { node: process.execPath, env, cwd: prefix });
    if (installedMajor(prefix, bin, { ask: true }) >= WANTED_NODE_MAJOR) return bin;
  }
  say(`Could not install Node ${WANTED_NODE_MAJOR} into ${prefix} (see npm's messages above). By hand:`);
  say(`  npm i -g --prefix ~/.node24 node@${WANTED_NODE_MAJOR} && export PATH=~/.node24/bin:$PATH`);
  process.exit(1);
}

/** Runs `npm ci` when node_modules is missing or differs from package-lock.json. */
function ensureInstalled(node, env) {
  const modules = join(root, 'node_modules');
  const link = lstatSafe(modules)?.isSymbolicLink() ?? false;
  const nodeModules = existsSync(modules);
  const reason = installReason({
    nodeModules,
    lock: nodeModules ? readText(join(root, 'package-lock.json')) : undefined,
    hidden: nodeModules ? readText(join(modules, '.package-lock.json')) : undefined,
  });
  if (!reason) return;
  if (link) {
    // A shared node_modules (a git worktree's link to the main checkout's) is not ours to replace.
    say(
      `${reason}; node_modules links to ` +
        `${nodeModules ? realpathSync(modules) : 'a missing folder'}, so it is left as it is (run npm ci there)`,
    );
    return;
  }
  say(`${reason}: running npm ci first`);
  if (!npm(['ci', '--no-audit', '--no-fund'], { node, env, cwd: root })) {
    say('npm ci failed (see above); the command did not run.');
    process.exit(1);
  }
}

function lstatSafe(path) {
  try {
    return lstatSync(path);
  } catch {
    return undefined;
  }
}

/** How often the parent is looked at (a getppid call): the longest an orphaned command keeps serving. */
const PARENT_CHECK_MS = 500;

/**
 * Starts the command and ends as it ends: same exit status, or the same signal.
 * The command stops with its start chain (docs/decisions/operations.md, 'A stop signal to any
 * process of the start chain stops the gateway once'):
 *   - a stop signal sent to this process alone (npm forwards SIGINT and SIGTERM to its script, a
 *     supervisor signals one PID) is passed on;
 *   - when our parent goes away (npm, or the `sh -c` of a script line without `exec`, killed or
 *     dead), we are orphaned: the command gets SIGTERM, as if the parent had passed it on;
 *   - a file command gets an IPC channel; when this process dies, even by SIGKILL, the channel
 *     closes, and the gateway stops on that (bin/gateway.ts) instead of serving orphaned.
 */
function run(command, env) {
  const stdio = command.shell ? 'inherit' : ['inherit', 'inherit', 'inherit', 'ipc'];
  const child = spawn(command.command, command.args, { stdio, env, shell: command.shell });
  // A terminal's Ctrl-C reaches the whole process group; a signal sent to this process alone (npm
  // forwards SIGTERM, a supervisor stops us) must reach the command too. Repeats are harmless:
  // the gateway's shutdown is idempotent.
  const signals = windows ? ['SIGINT', 'SIGTERM', 'SIGBREAK'] : ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGQUIT'];
  const forward = (signal) => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
  };
  for (const signal of signals) process.on(signal, forward);
  const parent = process.ppid;
  const orphaned = windows
    ? undefined
    : setInterval(() => {
        if (process.ppid === parent) return;
        clearInterval(orphaned);
        say(`bin/run.mjs: the process that started it (pid ${parent}) is gone; stopping the command`);
        forward('SIGTERM');
      }, PARENT_CHECK_MS);
  orphaned?.unref();
  child.on('error', (error) => {
    say(`could not start ${command.command}: ${error.message}`);
    process.exit(127);
  });
  child.on('exit', (code, signal) => {
    clearInterval(orphaned);
    for (const s of signals) process.removeListener(s, forward);
    if (signal) {
      process.exitCode = 128 + (constants.signals[signal] ?? 0);
      process.kill(process.pid, signal);
      return;
    }
    process.exit(code ?? 1);
  });
}

try {
  childCommand(process.argv.slice(2), 'node'); // a usage error costs no download
} catch (error) {
  say(error.message);
  process.exit(2);
}
const node = node24();
const command = childCommand(process.argv.slice(2), node);
const env = { ...process.env };
// Two glibc malloc arenas and a fixed mmap threshold unless the operator chose otherwise
// (docs/decisions/performance.md, 'Two malloc arenas' and 'A fixed mmap threshold'): read by glibc
// when the command starts, so they are set here, in its parent.
env.MALLOC_ARENA_MAX ??= '2';
env.MALLOC_MMAP_THRESHOLD_ ??= '131072';
const pathKey = Object.keys(env).find((key) => key.toUpperCase() === 'PATH') ?? 'PATH';
env[pathKey] = prependPath(env[pathKey], [dirname(node), join(root, 'node_modules', '.bin')], delimiter);
ensureInstalled(node, env);
run(command, env);
