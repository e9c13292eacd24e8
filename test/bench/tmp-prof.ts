// temporary: profile the gateway's tools/call only (not committed)
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startChild } from './lib/children.ts';
import { cpuMs } from './lib/machine.ts';
const B = '/work/main/test/bench';
const up = await startChild('up', join(B, 'servers/upstream.ts'), []);
const url = String(up.info.url);
const dir = mkdtempSync(join(tmpdir(), 'prof-'));
const seed = await startChild(
  'seed',
  join(B, 'servers/gateway.ts'),
  ['--store', 'embedded', '--data-dir', dir, '--accounts', '1', '--upstream', url, '--seed-only'],
  { readyTimeoutMs: 300000 },
);
await seed.stop();
const tokens = seed.info.tokens as string[];
const prof = process.argv[2] ?? '/work/main/.bench/prof.cpuprofile';
const gw = await startChild(
  'gw',
  join(B, 'servers/gateway.ts'),
  [
    '--store',
    'embedded',
    '--data-dir',
    dir,
    '--seeded',
    '--upstream',
    url,
    '--log-level',
    'info',
    ...(process.argv[3] === 'noprof' ? [] : ['--profile', prof]),
  ],
  { execArgv: ['--liftoff-only'], readyTimeoutMs: 300000 },
);
const load = await startChild('load', join(B, 'load.ts'), []);
const body = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'tools/call',
  params: { name: 'register__hent_virksomhed', arguments: { cvrNummer: 12345674 } },
});
const job = (amount: number) => ({
  load: { kind: 'closed', url: String(gw.info.url), path: '/register/mcp', body, tokens, connections: 32, amount },
});
await load.job(job(20000));
for (let i = 0; i < 3; i++) {
  const c0 = cpuMs(gw.pid);
  const r = await load.job<{ rps: number; ok: number; failed: number }>(job(40000));
  const us = ((cpuMs(gw.pid) - c0) * 1000) / r.ok;
  console.log('rps', Math.round(r.rps), 'ok', r.ok, 'failed', r.failed, 'cpu/call', us.toFixed(1), 'us');
}
if (process.argv[3] !== 'noprof') await gw.job({ op: 'stop-profile' });
await load.stop();
await gw.stop(30000);
await up.stop();
