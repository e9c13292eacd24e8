// The call log writer (runtime/metering/call-log.ts): the call path hands over a record and nothing is
// written until a flush; a flush is one store call with the calls and the daily usage (metered calls by
// billing day, instance and user; refusals are not usage); a failed flush keeps the calls for the next
// one within the bound; old calls are pruned once an hour by the retention in days.
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { registry } from '../generated/registry.ts';
import { loadConfig } from '../runtime/config/config.ts';
import { CallLogWriter, type CallSource } from '../runtime/metering/call-log.ts';
import type { CallLogRepository, CallLogRow, DailyUsageRow } from '../runtime/store/call-log.ts';

const NOW = Date.parse('2026-03-14T23:30:00Z'); // 2026-03-15 00:30 in Copenhagen
const ada: CallSource = { accountId: 'acc_1', instance: 'cases', userId: 'usr_ada', tokenId: 'tok_1' };
const bo: CallSource = { accountId: 'acc_1', instance: 'cases-2', userId: 'usr_bo', tokenId: 'oauth:g1' };

function fakeStore(fail: () => boolean = () => false) {
  const batches: { calls: readonly CallLogRow[]; daily: readonly DailyUsageRow[] }[] = [];
  const prunes: Date[] = [];
  const callLog = {
    async addCalls(calls, daily) {
      if (fail()) throw new Error('database away');
      batches.push({ calls, daily });
    },
    async pruneCalls(before) {
      prunes.push(before);
      return 0;
    },
  } as Pick<CallLogRepository, 'addCalls' | 'pruneCalls'> as CallLogRepository;
  return { store: { callLog }, batches, prunes };
}

const writer = (store: { callLog: CallLogRepository }, maxPending?: number) =>
  new CallLogWriter({
    store,
    timeZone: 'Europe/Copenhagen',
    flushMs: 60_000,
    retentionDays: 30,
    log: pino({ level: 'silent' }),
    now: () => NOW,
    ...(maxPending === undefined ? {} : { maxPending }),
  });

describe('the call log writer', () => {
  it('writes in statements of at most 1,000 calls; a failure keeps only the unwritten ones', async () => {
    let n = 0;
    const { store, batches } = fakeStore(() => ++n === 3);
    const w = writer(store);
    for (let i = 0; i < 2_400; i++) w.record(ada, 'find_cases', 'ok', 'ok', i);
    await expect(w.flush()).rejects.toThrow('database away');
    expect(batches.map((b) => b.calls.length)).toEqual([1_000, 1_000]);
    expect(w.pending).toBe(400);
    await w.flush();
    expect(batches.map((b) => b.calls.length)).toEqual([1_000, 1_000, 400]);
    expect(batches.flatMap((b) => b.calls.map((c) => c.durationMs))).toEqual(
      Array.from({ length: 2_400 }, (_, i) => i),
    );
    expect(batches.reduce((sum, b) => sum + b.daily.reduce((d, row) => d + row.calls, 0), 0)).toBe(2_400);
  });

  it('writes nothing on record; one batch per flush with the daily usage of metered calls', async () => {
    const { store, batches } = fakeStore();
    const w = writer(store);
    w.record(ada, 'find_cases', 'ok', 'ok', 12.4);
    w.record(ada, 'get_case', 'error', 'upstream_timeout', 30_000);
    w.record(bo, 'find_cases', 'refused', 'no_seat', null);
    w.record(bo, 'find_cases', 'ok', 'ok', 3);
    expect(batches).toEqual([]);
    expect(w.pending).toBe(4);
    await w.flush();
    expect(w.pending).toBe(0);
    expect(batches).toHaveLength(1);
    expect(batches[0]!.calls.map((c) => [c.userId, c.tool, c.outcome, c.detail, c.durationMs, c.tokenId])).toEqual([
      ['usr_ada', 'find_cases', 'ok', 'ok', 12, 'tok_1'],
      ['usr_ada', 'get_case', 'error', 'upstream_timeout', 30_000, 'tok_1'],
      ['usr_bo', 'find_cases', 'refused', 'no_seat', null, 'oauth:g1'],
      ['usr_bo', 'find_cases', 'ok', 'ok', 3, 'oauth:g1'],
    ]);
    expect(batches[0]!.calls[0]!.at.toISOString()).toBe('2026-03-14T23:30:00.000Z');
    // The billing day is Copenhagen's; the refusal is not usage.
    expect(batches[0]!.daily).toEqual([
      { accountId: 'acc_1', day: '2026-03-15', instanceId: 'cases', userId: 'usr_ada', calls: 2 },
      { accountId: 'acc_1', day: '2026-03-15', instanceId: 'cases-2', userId: 'usr_bo', calls: 1 },
    ]);
    await w.flush();
    expect(batches).toHaveLength(1);
  });

  it('keeps the calls of a failed flush for the next one, within the bound, and drops beyond it', async () => {
    let failing = true;
    const { store, batches } = fakeStore(() => failing);
    const w = writer(store, 3);
    w.record(ada, 'a', 'ok', 'ok', 1);
    w.record(ada, 'b', 'ok', 'ok', 1);
    await expect(w.flush()).rejects.toThrow('database away');
    expect(w.pending).toBe(2);
    w.record(ada, 'c', 'ok', 'ok', 1);
    w.record(ada, 'd', 'ok', 'ok', 1); // over the bound of 3: dropped
    expect(w.pending).toBe(3);
    failing = false;
    await w.flush();
    expect(batches.flatMap((b) => b.calls.map((c) => c.tool))).toEqual(['a', 'b', 'c']);
    expect(batches[0]!.daily).toEqual([
      { accountId: 'acc_1', day: '2026-03-15', instanceId: 'cases', userId: 'usr_ada', calls: 3 },
    ]);
  });

  it('prunes calls older than the retention at the first flush, then not again within the hour', async () => {
    const { store, prunes } = fakeStore();
    const w = writer(store);
    await w.flush();
    w.record(ada, 'a', 'ok', 'ok', 1);
    await w.flush();
    expect(prunes).toEqual([new Date(NOW - 30 * 86_400_000)]);
  });
});

describe('CALL_LOG_DAYS', () => {
  it('is 30 days by default, takes a whole number of days, and refuses 0 or a fraction', () => {
    expect(loadConfig(registry, { DATA_DIR: '/tmp/cg-test-unused' }).callLogDays).toBe(30);
    expect(loadConfig(registry, { DATA_DIR: '/tmp/cg-test-unused', CALL_LOG_DAYS: '90' }).callLogDays).toBe(90);
    for (const bad of ['0', '1.5', 'month'])
      expect(() => loadConfig(registry, { DATA_DIR: '/tmp/cg-test-unused', CALL_LOG_DAYS: bad })).toThrow(
        /CALL_LOG_DAYS/,
      );
  });
});
