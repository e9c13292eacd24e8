// The decisions of bin/run.mjs, free of side effects so test/bootstrap.test.ts can check them.
// Plain JavaScript on purpose: it runs on Node 20 (no type stripping) before anything is installed,
// so it imports nothing but node: built-ins.

/** The Node major this project runs on (package.json `engines`). */
export const WANTED_NODE_MAJOR = 24;

/** @param {string} version e.g. "20.20.2" or "v24.1.0" */
export function nodeMajor(version) {
  const major = Number.parseInt(String(version).replace(/^v/, ''), 10);
  return Number.isFinite(major) ? major : 0;
}

/** True when a Node of this version must hand over to Node 24. */
export function needsNode(version) {
  return nodeMajor(version) < WANTED_NODE_MAJOR;
}

/** The fields that say which copy of a package a lockfile entry means. */
const IDENTITY = ['version', 'resolved', 'integrity', 'link'];

/**
 * Why `npm ci` must run before the command, or undefined when node_modules is up to date.
 * Compares package-lock.json with node_modules/.package-lock.json (npm's "hidden lockfile", written
 * by every npm ci/install): every package the lockfile names must be installed as the same copy,
 * except optional ones (another platform's binaries, optional peers), and nothing else may be
 * installed. Contents, not modification times: a checkout that rewrites an identical lockfile
 * must not cost a reinstall.
 * @param {{ nodeModules: boolean, lock: string | undefined, hidden: string | undefined }} state
 *   whether node_modules exists, and the texts of the two lockfiles (undefined: no such file)
 * @returns {string | undefined}
 */
export function installReason({ nodeModules, lock, hidden }) {
  if (!nodeModules) return 'node_modules is missing';
  if (lock === undefined) return undefined; // nothing to compare with: npm ci would refuse anyway
  if (hidden === undefined) return 'node_modules has no .package-lock.json (not installed by npm ci)';
  let wanted;
  let installed;
  try {
    wanted = JSON.parse(lock).packages ?? {};
  } catch {
    return undefined; // a broken lockfile is npm ci's to report, not a reason to loop on it
  }
  try {
    installed = JSON.parse(hidden).packages ?? {};
  } catch {
    return 'node_modules/.package-lock.json is unreadable';
  }
  for (const [path, entry] of Object.entries(wanted)) {
    if (path === '' || !path.includes('node_modules/')) continue; // the project and its workspaces
    const have = installed[path];
    if (!have) {
      if (entry.optional) continue; // (devOptional is required when dev dependencies are installed)
      return `node_modules lacks ${packageName(path)} ${entry.version ?? ''}`.trimEnd();
    }
    for (const field of IDENTITY) {
      if (entry[field] !== undefined && have[field] !== undefined && entry[field] !== have[field]) {
        return (
          `node_modules has ${packageName(path)} ${have.version ?? '?'}, ` +
          `package-lock.json wants ${entry.version ?? entry[field]}`
        );
      }
    }
  }
  for (const path of Object.keys(installed)) {
    if (path.includes('node_modules/') && !(path in wanted))
      return `node_modules has ${packageName(path)}, which package-lock.json no longer lists`;
  }
  return undefined;
}

/** "node_modules/a/node_modules/@s/b" → "@s/b" */
function packageName(path) {
  return path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length);
}

/** Quotes one argument for sh (as npm does with the arguments after `--`). */
export function shellQuote(arg) {
  return /^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replaceAll("'", `'\\''`)}'`;
}

/**
 * What bin/run.mjs starts, from its arguments:
 *   <file> [args…]          that file on Node 24 (no shell: signals and the exit status are the file's)
 *   -c "<command line>" [args…]   a shell command line (several steps joined by &&), args appended quoted
 * @param {string[]} argv the arguments after bin/run.mjs
 * @param {string} node the Node 24 executable
 * @returns {{ command: string, args: string[], shell: boolean }}
 */
export function childCommand(argv, node) {
  if (argv[0] === '-c') {
    if (!argv[1]) throw new Error('bin/run.mjs -c needs a command line');
    return { command: [argv[1], ...argv.slice(2).map(shellQuote)].join(' '), args: [], shell: true };
  }
  // Node's own options (`--liftoff-only`) may come before the file, as on a node command line.
  const options = [];
  while (argv[options.length]?.startsWith('--')) options.push(argv[options.length]);
  const rest = argv.slice(options.length);
  if (!rest[0] || rest[0].startsWith('-'))
    throw new Error('usage: node bin/run.mjs [--node-option…] <file> [args…] | -c "<command line>" [args…]');
  return { command: node, args: [...options, ...rest], shell: false };
}

/**
 * The child's PATH: Node 24's directory first (so `node`, and every `#!/usr/bin/env node` script,
 * is Node 24), then the project's node_modules/.bin (as `npm run` adds it), then the rest.
 * @param {string | undefined} path the current PATH
 * @param {string[]} dirs the directories to put in front, in order
 * @param {string} delimiter ':' or ';'
 */
export function prependPath(path, dirs, delimiter) {
  const rest = (path ?? '').split(delimiter).filter((dir) => dir && !dirs.includes(dir));
  return [...dirs, ...rest].join(delimiter);
}
