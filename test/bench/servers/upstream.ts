// The zero-latency upstream (unless --delay-ms) shared by the floor, the peer pattern and the gateway: it answers every
// request with one fixed, small Elasticsearch `_search` response holding one company-register hit
// (the demo company of the register sandbox, projected to the fields `hent_virksomhed` asks for).
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { companySources, DEMO_CVR } from '../../../sandbox/register/data.ts';
import { argValue, exitWithParent, ready } from './ipc.ts';

function fixedSearchResponse(): string {
  const source = companySources.find((s) => s.Vrvirksomhed.cvrNummer === DEMO_CVR);
  if (!source) throw new Error('the register sandbox data has no demo company');
  const v = source.Vrvirksomhed as unknown as Record<string, unknown>;
  const meta = v['virksomhedMetadata'] as Record<string, unknown>;
  const keep = [
    'nyesteNavn',
    'nyesteVirksomhedsform',
    'nyesteBeliggenhedsadresse',
    'nyesteHovedbranche',
    'sammensatStatus',
    'stiftelsesDato',
    'nyesteAarsbeskaeftigelse',
    'nyesteKvartalsbeskaeftigelse',
    'nyesteMaanedsbeskaeftigelse',
  ];
  const attributter = (v['attributter'] as Array<{ type: string }>).filter(
    (a) => a.type === 'KAPITAL' || a.type === 'KAPITALVALUTA',
  );
  const projected = {
    Vrvirksomhed: {
      cvrNummer: v['cvrNummer'],
      reklamebeskyttet: v['reklamebeskyttet'],
      virksomhedMetadata: Object.fromEntries(keep.filter((k) => meta[k] !== undefined).map((k) => [k, meta[k]])),
      attributter,
    },
  };
  return JSON.stringify({
    took: 1,
    timed_out: false,
    _shards: { total: 1, successful: 1, skipped: 0, failed: 0 },
    hits: {
      total: 1,
      max_score: 1,
      hits: [
        { _index: 'cvr-permanent-virksomhed', _type: '_doc', _id: String(DEMO_CVR), _score: 1, _source: projected },
      ],
    },
  });
}

const body = Buffer.from(fixedSearchResponse());
const headers = { 'content-type': 'application/json; charset=UTF-8', 'content-length': String(body.length) };

// --delay-ms N: every answer waits N ms first (the slow-upstream row: many calls in flight at once).
const delayMs = Number(argValue('delay-ms', '0'));
const answer = (res: ServerResponse) => {
  res.writeHead(200, headers);
  res.end(body);
};
const server = createServer({ keepAliveTimeout: 65_000 }, (req, res) => {
  req.resume();
  req.on('end', () => {
    if (delayMs > 0) setTimeout(answer, delayMs, res);
    else answer(res);
  });
});
server.listen(0, '127.0.0.1', () => {
  const { port } = server.address() as AddressInfo;
  ready({ url: `http://127.0.0.1:${port}`, bytes: body.length });
});
exitWithParent(async () => {
  server.closeAllConnections();
  server.close();
});
