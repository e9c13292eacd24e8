// bin/run.mjs, the entry of `npm start` / `npm test` / serve / admin / bench on a fresh clone:
// its decisions (does Node hand over to Node 24? does node_modules need `npm ci`?) as pure
// functions, then the script itself in a scratch project with a recording stand-in for npm
// (npm ci runs once and says why in one line; the second run calls no npm; exit status and
// signals of the command come through).
import { spawn, spawnSync } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  childCommand,
  installReason,
  needsNode,
  nodeMajor,
  prependPath,
  shellQuote,
  WANTED_NODE_MAJOR,
} from '../bin/bootstrap.mjs';

const ROOT = new URL('..', import.meta.url).pathname;

describe('which Node runs the command', () => {
  it('reads the major from a version with or without its v', () => {
    expect(nodeMajor('20.20.2')).toBe(20);
    expect(nodeMajor('v24.1.0')).toBe(24);
    expect(nodeMajor('24.21.0\n')).toBe(24);
    expect(nodeMajor('')).toBe(0);
    expect(nodeMajor('garbage')).toBe(0);
  });

  it('hands over below 24 only, matching package.json engines', () => {
    expect(WANTED_NODE_MAJOR).toBe(24);
    expect(JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).engines.node).toBe(`>=${WANTED_NODE_MAJOR}`);
    expect(needsNode('18.19.0')).toBe(true);
    expect(needsNode('20.20.2')).toBe(true);
    expect(needsNode('22.12.0')).toBe(true);
    expect(needsNode('24.0.0')).toBe(false);
    expect(needsNode('25.2.1')).toBe(false);
  });
});

/** A lockfile text with the given packages (path → entry), as npm writes both lockfiles. */
const lockfile = (packages: Record<string, object>, root = true) =>
  JSON.stringify({
    name: 'p',
    lockfileVersion: 3,
    requires: true,
    packages: { ...(root ? { '': { name: 'p', dependencies: { a: '^1.0.0' } } } : {}), ...packages },
  });

const A1 = { version: '1.0.0', integrity: 'sha512-aaa' };
const B2 = { version: '2.0.0', integrity: 'sha512-bbb', dev: true };
const NESTED = { version: '0.1.0', integrity: 'sha512-ccc' };
const OTHER_PLATFORM = { version: '3.0.0', integrity: 'sha512-ddd', optional: true, os: ['darwin'] };
const LOCK = lockfile({
  'node_modules/a': A1,
  'node_modules/b': B2,
  'node_modules/b/node_modules/c': NESTED,
  'node_modules/@x/darwin': OTHER_PLATFORM,
});
const INSTALLED = lockfile(
  { 'node_modules/a': A1, 'node_modules/b': B2, 'node_modules/b/node_modules/c': NESTED },
  false,
);

describe('when npm ci runs first', () => {
  it("never when node_modules holds package-lock.json's list (other platforms’ optional binaries may lack)", () => {
    expect(installReason({ nodeModules: true, lock: LOCK, hidden: INSTALLED })).toBeUndefined();
  });

  it('when node_modules is missing, or was not installed by npm', () => {
    expect(installReason({ nodeModules: false, lock: LOCK, hidden: undefined })).toBe('node_modules is missing');
    expect(installReason({ nodeModules: true, lock: LOCK, hidden: undefined })).toBe(
      'node_modules has no .package-lock.json (not installed by npm ci)',
    );
    expect(installReason({ nodeModules: true, lock: LOCK, hidden: '{"packages":' })).toBe(
      'node_modules/.package-lock.json is unreadable',
    );
  });

  it('when the lockfile wants another copy of a package (version, integrity) or one more package', () => {
    const bumped = lockfile({
      'node_modules/a': { version: '1.1.0', integrity: 'sha512-new' },
      'node_modules/b': B2,
      'node_modules/b/node_modules/c': NESTED,
    });
    expect(installReason({ nodeModules: true, lock: bumped, hidden: INSTALLED })).toBe(
      'node_modules has a 1.0.0, package-lock.json wants 1.1.0',
    );
    const republished = lockfile({
      'node_modules/a': { version: '1.0.0', integrity: 'sha512-other' },
      'node_modules/b': B2,
      'node_modules/b/node_modules/c': NESTED,
    });
    expect(installReason({ nodeModules: true, lock: republished, hidden: INSTALLED })).toBe(
      'node_modules has a 1.0.0, package-lock.json wants 1.0.0',
    );
    const added = lockfile({
      'node_modules/a': A1,
      'node_modules/b': B2,
      'node_modules/b/node_modules/c': NESTED,
      'node_modules/@s/d': { version: '4.0.0', dev: true },
    });
    expect(installReason({ nodeModules: true, lock: added, hidden: INSTALLED })).toBe('node_modules lacks @s/d 4.0.0');
    const nestedMissing = lockfile({
      'node_modules/a': A1,
      'node_modules/b': B2,
      'node_modules/b/node_modules/c': NESTED,
    });
    const hiddenWithoutNested = lockfile({ 'node_modules/a': A1, 'node_modules/b': B2 }, false);
    expect(installReason({ nodeModules: true, lock: nestedMissing, hidden: hiddenWithoutNested })).toBe(
      'node_modules lacks c 0.1.0',
    );
  });

  it('when node_modules holds a package the lockfile no longer lists', () => {
    const removed = lockfile({ 'node_modules/a': A1, 'node_modules/b/node_modules/c': NESTED, 'node_modules/b': B2 });
    const extra = lockfile(
      {
        'node_modules/a': A1,
        'node_modules/b': B2,
        'node_modules/b/node_modules/c': NESTED,
        'node_modules/old': { version: '0.0.1' },
      },
      false,
    );
    expect(installReason({ nodeModules: true, lock: removed, hidden: extra })).toBe(
      'node_modules has old, which package-lock.json no longer lists',
    );
  });

  it('not over fields that say nothing about the copy, nor over a field only one side records', () => {
    const withResolved = lockfile({
      'node_modules/a': { ...A1, resolved: 'https://registry.npmjs.org/a/-/a-1.0.0.tgz', license: 'MIT' },
      'node_modules/b': B2,
      'node_modules/b/node_modules/c': NESTED,
    });
    expect(installReason({ nodeModules: true, lock: LOCK, hidden: withResolved })).toBeUndefined();
    // devOptional is needed when dev dependencies are installed, as npm ci installs them.
    const devOptional = lockfile({
      'node_modules/a': A1,
      'node_modules/b': B2,
      'node_modules/b/node_modules/c': NESTED,
      'node_modules/e': { version: '5.0.0', devOptional: true },
    });
    expect(installReason({ nodeModules: true, lock: devOptional, hidden: INSTALLED })).toBe(
      'node_modules lacks e 5.0.0',
    );
  });

  it('leaves a broken or absent package-lock.json to npm itself', () => {
    expect(installReason({ nodeModules: true, lock: undefined, hidden: INSTALLED })).toBeUndefined();
    expect(installReason({ nodeModules: true, lock: '<<<<<<< HEAD', hidden: INSTALLED })).toBeUndefined();
  });

  it('agrees that this checkout is installed', () => {
    const hidden = join(ROOT, 'node_modules', '.package-lock.json');
    expect(existsSync(hidden)).toBe(true);
    expect(
      installReason({
        nodeModules: true,
        lock: readFileSync(join(ROOT, 'package-lock.json'), 'utf8'),
        hidden: readFileSync(hidden, 'utf8'),
      }),
    ).toBeUndefined();
  });
});

describe('what runs', () => {
  it('a file on Node 24 without a shell, its arguments untouched', () => {
    expect(childCommand(['bin/start.mjs', '--demo'], '/n/bin/node')).toEqual({
      command: '/n/bin/node',
      args: ['bin/start.mjs', '--demo'],
      shell: false,
    });
    expect(childCommand(['bin/admin.ts', 'accounts', 'create', 'A b; rm -rf /'], 'node').args).toEqual([
      'bin/admin.ts',
      'accounts',
      'create',
      'A b; rm -rf /',
    ]);
    // Node's own options before the file go to node, as on a node command line.
    expect(childCommand(['--liftoff-only', 'bin/start.mjs', '--demo'], 'node').args).toEqual([
      '--liftoff-only',
      'bin/start.mjs',
      '--demo',
    ]);
  });

  it('a command line through the shell, extra arguments quoted onto its end', () => {
    expect(childCommand(['-c', 'a && b'], 'node')).toEqual({ command: 'a && b', args: [], shell: true });
    expect(childCommand(['-c', 'a && b', '-t', "it's x"], 'node').command).toBe(`a && b -t 'it'\\''s x'`);
    expect(shellQuote('test/x.test.ts')).toBe('test/x.test.ts');
    expect(shellQuote('$(id)')).toBe(`'$(id)'`);
  });

  it('refuses no command, or an option it does not know', () => {
    expect(() => childCommand([], 'node')).toThrow(/^usage: node bin\/run\.mjs/);
    expect(() => childCommand(['--inspect'], 'node')).toThrow(/^usage:/);
    expect(() => childCommand(['-c'], 'node')).toThrow('bin/run.mjs -c needs a command line');
  });

  it('puts Node 24 and node_modules/.bin first on PATH, once each', () => {
    expect(prependPath('/usr/bin:/n24/bin:/bin', ['/n24/bin', '/p/node_modules/.bin'], ':')).toBe(
      '/n24/bin:/p/node_modules/.bin:/usr/bin:/bin',
    );
    expect(prependPath(undefined, ['/n24/bin'], ':')).toBe('/n24/bin');
    expect(prependPath('C:\\Windows;;C:\\n', ['C:\\n'], ';')).toBe('C:\\n;C:\\Windows');
  });
});

describe('bin/run.mjs in a scratch project', () => {
  const dir = mkdtempSync(join(tmpdir(), 'run-mjs-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  mkdirSync(join(dir, 'bin'));
  for (const file of ['run.mjs', 'bootstrap.mjs']) copyFileSync(join(ROOT, 'bin', file), join(dir, 'bin', file));
  writeFileSync(join(dir, 'package-lock.json'), LOCK);
  // The stand-in for npm: records its arguments and installs what the lockfile lists.
  const calls = join(dir, 'npm-calls.txt');
  const fakeNpm = join(dir, 'npm-cli.js');
  writeFileSync(
    fakeNpm,
    `const fs = require('node:fs');
fs.appendFileSync(${JSON.stringify(calls)}, process.argv.slice(2).join(' ') + '\\n');
fs.mkdirSync('node_modules', { recursive: true });
fs.writeFileSync('node_modules/.package-lock.json', ${JSON.stringify(INSTALLED)});`,
  );
  const run = (args: string[], env: Record<string, string> = {}) =>
    spawnSync(process.execPath, [join(dir, 'bin', 'run.mjs'), ...args], {
      cwd: dir,
      env: { ...process.env, npm_execpath: fakeNpm, ...env },
      encoding: 'utf8',
    });
  const npmCalls = () => (existsSync(calls) ? readFileSync(calls, 'utf8').trim().split('\n') : []);

  it('runs npm ci once, says why in one line, and the command runs after it', () => {
    const first = run(['-c', 'echo ran with node_modules: && ls -A node_modules']);
    expect(first.status, first.stderr).toBe(0);
    expect(first.stderr).toBe('node_modules is missing: running npm ci first\n');
    expect(first.stdout).toBe('ran with node_modules:\n.package-lock.json\n');
    expect(npmCalls()).toEqual(['ci --no-audit --no-fund']);

    const second = run(['-c', 'echo again']);
    expect(second.stderr).toBe('');
    expect(second.stdout).toBe('again\n');
    expect(npmCalls()).toHaveLength(1);
  });

  it('runs npm ci again after the lockfile changed', () => {
    const bumped = JSON.parse(LOCK);
    bumped.packages['node_modules/a'] = { version: '1.1.0', integrity: 'sha512-new' };
    writeFileSync(join(dir, 'package-lock.json'), JSON.stringify(bumped));
    try {
      const result = run(['-c', 'true']);
      expect(result.stderr).toBe('node_modules has a 1.0.0, package-lock.json wants 1.1.0: running npm ci first\n');
      expect(npmCalls()).toHaveLength(2);
    } finally {
      writeFileSync(join(dir, 'package-lock.json'), LOCK);
    }
  });

  it('a failed npm ci stops there, with its status', () => {
    const failing = join(dir, 'failing', 'npm-cli.js');
    mkdirSync(join(dir, 'failing'));
    writeFileSync(failing, 'process.exit(3);');
    rmSync(join(dir, 'node_modules'), { recursive: true });
    try {
      const result = run(['-c', 'echo must not run'], { npm_execpath: failing });
      expect(result.status).toBe(1);
      expect(result.stdout).toBe('');
      expect(result.stderr).toBe(
        'node_modules is missing: running npm ci first\nnpm ci failed (see above); the command did not run.\n',
      );
    } finally {
      run(['-c', 'true']);
    }
  });

  it('never reinstalls a node_modules that is a link to another checkout’s', () => {
    const other = join(dir, 'other-checkout-modules');
    mkdirSync(other);
    writeFileSync(join(other, '.package-lock.json'), lockfile({ 'node_modules/a': { version: '0.9.0' } }, false));
    const own = join(dir, 'node_modules');
    rmSync(own, { recursive: true });
    symlinkSync(other, own);
    try {
      const before = npmCalls().length;
      const result = run(['-c', 'echo ran']);
      expect(result.stdout).toBe('ran\n');
      expect(result.stderr).toMatch(
        /^node_modules has a 0\.9\.0, package-lock\.json wants 1\.0\.0; node_modules links to /,
      );
      expect(result.stderr).toMatch(/other-checkout-modules, so it is left as it is \(run npm ci there\)\n$/);
      expect(npmCalls()).toHaveLength(before);
      expect(existsSync(join(other, '.package-lock.json'))).toBe(true);
    } finally {
      rmSync(own);
      run(['-c', 'true']);
    }
  });

  it('gives the command two malloc arenas and a fixed mmap threshold unless its environment names its own', () => {
    const { MALLOC_ARENA_MAX: _arenas, MALLOC_MMAP_THRESHOLD_: _threshold, ...without } = process.env;
    const echo = 'echo "$MALLOC_ARENA_MAX $MALLOC_MMAP_THRESHOLD_"';
    const defaulted = spawnSync(process.execPath, [join(dir, 'bin', 'run.mjs'), '-c', echo], {
      cwd: dir,
      env: { ...without, npm_execpath: fakeNpm },
      encoding: 'utf8',
    });
    expect(defaulted.stdout).toBe('2 131072\n');
    expect(run(['-c', echo], { MALLOC_ARENA_MAX: '4', MALLOC_MMAP_THRESHOLD_: '65536' }).stdout).toBe('4 65536\n');
  });

  it('ends as the command ends: its exit status, or its signal', () => {
    expect(run(['-c', 'exit 7']).status).toBe(7);
    writeFileSync(join(dir, 'fails.mjs'), 'process.exitCode = 4;');
    expect(run(['fails.mjs']).status).toBe(4);
    const killed = run(['-c', 'kill -TERM $$']);
    expect(killed.status).toBeNull();
    expect(killed.signal).toBe('SIGTERM');
  });

  it('passes a signal sent to it alone on to the command, which ends cleanly', async () => {
    // The command says whether node_modules/.bin is first on its PATH after Node's directory, then
    // waits; on SIGTERM it says so and exits 0.
    writeFileSync(
      join(dir, 'serve.mjs'),
      `process.on('SIGTERM', () => { console.log('stopping cleanly'); process.exit(0); });
const second = process.env.PATH.split(${JSON.stringify(delimiter)})[1];
console.log('node_modules/.bin second on PATH:', second === ${JSON.stringify(join(dir, 'node_modules', '.bin'))});
setInterval(() => {}, 1000);`,
    );
    const child = spawn(process.execPath, [join(dir, 'bin', 'run.mjs'), 'serve.mjs'], {
      cwd: dir,
      env: { ...process.env, npm_execpath: fakeNpm },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    await new Promise<void>((resolve) =>
      child.stdout.on('data', (chunk) => {
        out += chunk;
        if (out.includes('\n')) resolve();
      }),
    );
    child.kill('SIGTERM'); // to bin/run.mjs only, not to the command
    expect(await exited).toBe(0);
    expect(out).toBe('node_modules/.bin second on PATH: true\nstopping cleanly\n');
  });

  it('a usage error costs nothing and says how to call it', () => {
    const result = run([]);
    expect(result.status).toBe(2);
    expect(result.stderr).toBe(
      'usage: node bin/run.mjs [--node-option…] <file> [args…] | -c "<command line>" [args…]\n',
    );
  });
});
