// docs/decisions/operations.md, 'Usage counted during a database outage is spilled on stop'.
import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { UsageMeter } from '../runtime/metering/usage.ts';
import { applySpills, spillCalls, spillFiles, writeSpill } from '../runtime/metering/usage-spill.ts';
import { createLogger } from '../runtime/operations/observability.ts';
import type { UsageRow } from '../runtime/store/store.ts';

const log = createLogger('silent');

function fakeUsage(up: () => boolean) {
  const applied = new Set<string>();
  const rows: UsageRow[] = [];
  return {
    rows,
    usage: {
      async addUsage(batch: readonly UsageRow[], id?: string) {
        if (!up()) throw new Error('connect ECONNREFUSED');
        if (id !== undefined && applied.has(id)) return;
        if (id !== undefined) applied.add(id);
        rows.push(...batch);
      },
    },
  };
}

function meterOn(usage: object) {
  return new UsageMeter({
    store: { usage } as never,
    timeZone: 'UTC',
    defaultQuota: 1000,
    flushMs: 60_000,
    counterTimeoutMs: 100,
    log,
  });
}

describe('usage spill on stop', () => {
  it('returns nothing to spill when the database takes the final flush', async () => {
    const db = fakeUsage(() => true);
    const meter = meterOn(db.usage);
    for (let i = 0; i < 5; i++) meter.record('acc_1', 'cases', 'search', new Date());
    expect(await meter.stop(0)).toEqual([]);
    expect(db.rows.reduce((n, r) => n + r.calls, 0)).toBe(5);
  });

  it('spills what the database did not take in the drain time (0600); a start applies it exactly once', async () => {
    let up = false;
    const db = fakeUsage(() => up);
    const meter = meterOn(db.usage);
    for (let i = 0; i < 7; i++) meter.record('acc_1', 'cases', 'search', new Date());
    await meter.flush().catch(() => {}); // a failed batch (kept under its id)
    for (let i = 0; i < 3; i++) meter.record('acc_1', 'cases', 'get', new Date());
    const left = await meter.stop(50);
    expect(spillCalls(left)).toBe(10);
    const dir = mkdtempSync(join(tmpdir(), 'spill-'));
    const file = writeSpill(dir, left);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(file, 'utf8')).batches).toHaveLength(2);
    up = true;
    await applySpills(dir, db.usage as never, log);
    expect(db.rows.reduce((n, r) => n + r.calls, 0)).toBe(10);
    expect(spillFiles(dir)).toEqual([]);
    // The same file again (say a copy applied by the admin CLI): its batch ids are known, nothing is added.
    writeSpill(dir, left);
    await applySpills(dir, db.usage as never, log);
    expect(db.rows.reduce((n, r) => n + r.calls, 0)).toBe(10);
  });
});
