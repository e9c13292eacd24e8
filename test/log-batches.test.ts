// The log destination (runtime/operations/log-batches.ts): lines gathered into batches in front of
// sonic-boom are written whole and in order, when a batch is full, after the flush interval, on
// flush, and at process exit.
import { spawnSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { lineBatches } from '../runtime/operations/log-batches.ts';

const dirs: string[] = [];
function tempFile(): { path: string; fd: number } {
  const dir = mkdtempSync(join(tmpdir(), 'log-batches-'));
  dirs.push(dir);
  const path = join(dir, 'out.log');
  return { path, fd: openSync(path, 'w') };
}
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
const lines = (n: number, from = 0) =>
  Array.from({ length: n }, (_, i) => `{"n":${from + i},"msg":"line ${'x'.repeat(i % 50)}"}\n`);
const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('log lines in batches', () => {
  it('writes every line whole and in order; flush calls back once all are written', async () => {
    const { path, fd } = tempFile();
    const out = lineBatches(fd, { batchChars: 1024, flushMs: 10_000 });
    const written = lines(5000);
    for (const line of written) out.write(line);
    await new Promise<void>((resolve, reject) => out.flush((error) => (error ? reject(error) : resolve())));
    expect(readFileSync(path, 'utf8')).toBe(written.join(''));
    out.end(); // closes the file
  });

  it('holds a batch below its size until the flush interval, then writes it', async () => {
    const { path, fd } = tempFile();
    const out = lineBatches(fd, { batchChars: 1_000_000, flushMs: 50 });
    out.write('{"a":1}\n');
    out.write('{"b":"æøå"}\n');
    await wait(10);
    expect(readFileSync(path, 'utf8')).toBe('');
    // The interval passed: the batch is handed to the asynchronous writer; polled, not waited for a
    // fixed time, so a stalled machine delays the test instead of failing it.
    for (let i = 0; i < 1000 && readFileSync(path, 'utf8') === ''; i++) await wait(10);
    expect(readFileSync(path, 'utf8')).toBe('{"a":1}\n{"b":"æøå"}\n');
    out.end(); // closes the file
  });

  it('flushSync writes what is gathered at once', () => {
    const { path, fd } = tempFile();
    const out = lineBatches(fd, { batchChars: 1_000_000, flushMs: 60_000 });
    out.write('{"c":1}\n');
    out.flushSync();
    expect(readFileSync(path, 'utf8')).toBe('{"c":1}\n');
    out.end(); // closes the file
  });

  it('a process that exits right after logging loses no line', () => {
    const { path, fd } = tempFile();
    closeSync(fd);
    const module = join(import.meta.dirname, '../runtime/operations/log-batches.ts');
    const script =
      `import { openSync } from 'node:fs'; import { lineBatches } from ${JSON.stringify(module)};` +
      `const out = lineBatches(openSync(${JSON.stringify(path)}, 'w'), { batchChars: 4096, flushMs: 60000 });` +
      `for (let i = 0; i < 1000; i++) out.write('{"i":' + i + '}\\n'); process.exit(0);`;
    const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
    expect(run.status, run.stderr).toBe(0);
    const got = readFileSync(path, 'utf8').split('\n').filter(Boolean);
    expect(got).toHaveLength(1000);
    expect(got.at(-1)).toBe('{"i":999}');
  });
});
