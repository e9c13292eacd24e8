// Resident memory of the gateway while several big upstream bodies arrive at once (issue item 7):
// a fake ledger in a child process answers every Query/Get with the same ~60 MB JSON array, and
// eight concurrent `list_debtors` calls go through the gateway in this process (embedded store).
// Prints RSS before, the peak while the calls run (sampled every 10 ms), and after the calls
// (settled, after a full GC when run with --expose-gc). A measurement, not a test:
//
//   node --expose-gc test/bench/upstream-body-memory.ts [--calls 8] [--mb 60] [--budget <bytes>]
import { fork } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { openStore } from '../../runtime/store/open-store.ts';
import { connectTenant, createTenant, mcpClient, startGateway } from '../support/gateway.ts';
import { argValue } from './servers/ipc.ts';

const MB = 1024 * 1024;

if (process.argv.includes('--upstream')) {
  // ~200-byte rows of ten properties, like a real DebtorClient reply, up to the size asked for.
  const target = Number(argValue('mb', '60')) * MB;
  const parts: string[] = [];
  let size = 1;
  for (let i = 0; size < target; i++) {
    const row = JSON.stringify({
      Account: String(100000 + i),
      Name: `Debtor ${i} ApS`,
      CompanyRegNo: String(10000000 + (i % 89999999)),
      Address1: `Street ${i % 997}`,
      ZipCode: String(1000 + (i % 8999)),
      City: 'Copenhagen',
      Country: 'Denmark',
      Currency: 'DKK',
      CurBalance: (i % 10007) * 1.25,
      Blocked: i % 13 === 0,
    });
    parts.push(row);
    size += row.length + 1;
  }
  const body = Buffer.from(`[${parts.join(',')}]`);
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      if (req.url === '/login')
        return void res
          .writeHead(200, { 'content-type': 'application/json' })
          .end(JSON.stringify({ token: 'bench-token' }));
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(body.length) }).end(body);
    });
  });
  server.listen(0, '127.0.0.1', () =>
    process.send?.({
      url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
      bytes: body.length,
      rows: parts.length,
    }),
  );
  process.on('disconnect', () => process.exit(0));
} else {
  const calls = Number(argValue('calls', '8'));
  const budget = argValue('budget');
  const child = fork(process.argv[1]!, ['--upstream', '--mb', argValue('mb', '60')!], { stdio: 'inherit' });
  const upstream = await new Promise<{ url: string; bytes: number; rows: number }>((resolve) =>
    child.once('message', (m) => resolve(m as never)),
  );
  const store = await openStore({});
  const gw = await startGateway(store, {
    env: {
      CONNECTOR_LEDGER_BASE_URL: upstream.url,
      RATE_LIMIT_BURST: '1000',
      ...(budget ? { UPSTREAM_BODY_BUDGET_BYTES: budget } : {}),
    },
  });
  const tenant = await createTenant(store, { subscribe: ['ledger'] });
  await connectTenant(gw, tenant, 'ledger', { username: 'bench', password: 'Zq7-bench-secret', companyId: '12345' });
  const clients = await Promise.all(Array.from({ length: calls }, () => mcpClient(gw.url, 'ledger', tenant.token)));
  const gc = (globalThis as { gc?: () => void }).gc;
  const settle = async () => {
    for (let i = 0; i < 3; i++) {
      gc?.();
      await new Promise((r) => setTimeout(r, 300));
    }
  };
  const mem = () => {
    const m = process.memoryUsage();
    return {
      rss: Math.round(m.rss / MB),
      heapUsed: Math.round(m.heapUsed / MB),
      external: Math.round(m.external / MB),
      arrayBuffers: Math.round(m.arrayBuffers / MB),
    };
  };
  await settle();
  const before = mem();
  let peak = before.rss;
  const sampler = setInterval(() => {
    peak = Math.max(peak, Math.round(process.memoryUsage().rss / MB));
  }, 10);
  const started = performance.now();
  const results = await Promise.all(
    clients.map((c) => c.callTool({ name: 'ledger__list_debtors', arguments: { limit: 5 } })),
  );
  const seconds = (performance.now() - started) / 1000;
  clearInterval(sampler);
  const ok = results.filter((r) => !r.isError).length;
  await settle();
  const after = mem();
  console.log(
    JSON.stringify(
      {
        calls,
        bodyMB: Math.round(upstream.bytes / MB),
        rows: upstream.rows,
        budget: budget ?? 'default',
        ok,
        seconds: Number(seconds.toFixed(2)),
        before,
        peakRssMB: peak,
        after,
        gcExposed: gc !== undefined,
      },
      null,
      1,
    ),
  );
  await Promise.all(clients.map((c) => c.close()));
  await gw.close();
  await store.close();
  child.disconnect();
}
