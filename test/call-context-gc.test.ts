// A finished call's context must die young. An object literal with an accessor of its own (the
// lazy `ctx.log` getter it once had) kept everything its closure reached, the whole call, alive
// through every young-generation collection until the next full one: 1.9 MB of each scavenge in
// the gateway at 1,000 calls/s, all of it promoted (docs/decisions.md). Measured here with V8's own
// GC statistics after a forced young-generation collection, not with timings.
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { platformDescriptor } from '../generated/platform/descriptor.ts';
import { registerDescriptor } from '../generated/register/descriptor.ts';
import { ConnectorTexts, createToolContext } from '../runtime/pipeline/call-context.ts';
import { noWrites } from '../runtime/pipeline/write-guard.ts';
import { Redactor } from '../runtime/redact.ts';
import { youngGeneration } from './support/young-generation.ts';

const CALLS = 20_000;
/** What one call's context reaches: ~8 KB of its own (a stand-in for its upstream client, logger, args). */
const callPayload = (i: number) => ({ rows: Array.from({ length: 1_000 }, (_, j) => i + j) });

describe('a tool call context', () => {
  it('dies in the young generation once the call is done, with ctx.log and ctx.text used', async () => {
    const texts = new ConnectorTexts(registerDescriptor, platformDescriptor);
    const logger = pino({ level: 'silent' });
    let seen = 0;
    const { survival } = await youngGeneration(() => {
      for (let i = 0; i < CALLS; i++) {
        const payload = callPayload(i);
        const ctx = createToolContext({
          connectorId: 'register',
          instanceId: 'register',
          accountId: `acc_${i}`,
          credential: null,
          upstream: { baseUrl: 'http://127.0.0.1:1', request: async () => payload as never },
          limits: {},
          log: () => logger.child({ payload }),
          signal: new AbortController().signal,
          now: () => new Date(),
          timeZone: 'Europe/Copenhagen',
          tokens: { seal: () => '', open: () => undefined },
          upstreamQuota: { take: async () => true },
          texts,
          redactor: Redactor.of(null),
          write: noWrites,
        });
        ctx.log.debug('one line');
        seen += ctx.describeFailure(new Error(String(payload.rows.length))).message.length;
      }
    });
    expect(seen).toBeGreaterThan(0);
    // With the literal getter half of it survived (0.51 in two runs); as a class, 0.2 %.
    expect(survival).toBeLessThan(0.2);
  });
});
