// The company-register sandbox, tested through its own HTTP interface: auth, the ES 6 query
// subset and envelope, the demo data the connector relies on, faults and the concurrency counter.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  AGRICULTURE_CVR,
  BENEFICIAL_OWNER_ENHEDSNUMMER,
  DEMO_CEASED_PNUMMER,
  DEMO_CVR,
  DEMO_HOLDING_CVR,
  DEMO_HQ_PNUMMER,
  DEMO_SUBSIDIARY_CVR,
  DISSOLVED_CVR,
  ESTATE_OWNED_CVR,
  MOVED_PNUMMER,
  NAMESAKE_ENHEDSNUMRE,
  NAMESAKE_NAME,
  PROTECTED_CVR,
  UNKNOWN_CVR,
} from '../sandbox/register/data.ts';
import { startRegisterSandbox } from '../sandbox/register/server.ts';
import type { RegisterSandbox } from '../sandbox/register/server.ts';

const USER = 'tester';
const PASSWORD = 's3cret:with-colon';
const AUTH = `Basic ${Buffer.from(`${USER}:${PASSWORD}`).toString('base64')}`;

const COMPANY_NAME = 'Vrvirksomhed.virksomhedMetadata.nyesteNavn.navn';

interface Reply {
  status: number;
  contentType: string;
  text: string;
  json: () => any;
}

interface CallOptions {
  auth?: string | null;
  method?: string;
  contentType?: string | null;
  raw?: string;
  signal?: AbortSignal;
}

async function call(base: string, path: string, body?: unknown, options: CallOptions = {}): Promise<Reply> {
  const headers: Record<string, string> = {};
  if (options.contentType !== null) headers['content-type'] = options.contentType ?? 'application/json';
  if (options.auth !== null) headers.authorization = options.auth ?? AUTH;
  const res = await fetch(`${base}${path}`, {
    method: options.method ?? 'POST',
    headers,
    body: options.raw ?? (body === undefined ? undefined : JSON.stringify(body)),
    ...(options.signal === undefined ? {} : { signal: options.signal }),
  });
  const text = await res.text();
  return { status: res.status, contentType: res.headers.get('content-type') ?? '', text, json: () => JSON.parse(text) };
}

/** Every `vaerdi`, history element and metadata field, walked generically. */
function walk(
  value: unknown,
  visit: (node: Record<string, unknown>, key: string | null) => void,
  key: string | null = null,
): void {
  if (Array.isArray(value)) {
    for (const element of value) walk(element, visit, key);
    return;
  }
  if (typeof value === 'object' && value !== null) {
    visit(value as Record<string, unknown>, key);
    for (const [k, v] of Object.entries(value)) walk(v, visit, k);
  }
}

const HISTORY_ARRAYS = new Set([
  'navne',
  'binavne',
  'beliggenhedsadresse',
  'postadresse',
  'hovedbranche',
  'virksomhedsform',
  'virksomhedsstatus',
  'livsforloeb',
  'penheder',
  'virksomhedsrelation',
  'vaerdier',
  'organisationsNavn',
]);

function lastOf<T>(items: readonly T[]): T {
  return items[items.length - 1]!;
}

let sandbox: RegisterSandbox;
let search: (path: string, body?: unknown, options?: CallOptions) => Promise<Reply>;

beforeAll(async () => {
  sandbox = await startRegisterSandbox({ port: 0, username: USER, password: PASSWORD });
  search = (path, body, options) => call(sandbox.url, path, body, options);
});

afterAll(async () => {
  await sandbox.close();
});

beforeEach(() => {
  sandbox.setFault('none');
});

describe('register sandbox: HTTP surface', () => {
  it('listens on 127.0.0.1 and exposes a base URL ending in /cvr-permanent', () => {
    expect(sandbox.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/cvr-permanent$/);
  });

  it('answers a missing or wrong credential with a plain-text 401', async () => {
    for (const auth of [null, `Basic ${Buffer.from(`${USER}:wrong`).toString('base64')}`, 'Bearer abc']) {
      const r = await search('/virksomhed/_search', {}, { auth });
      expect(r.status).toBe(401);
      expect(r.contentType).toMatch(/^text\/plain/);
      expect(() => JSON.parse(r.text)).toThrow();
    }
  });

  it('serves the three aliases and /_search over all of them', async () => {
    const roots = { virksomhed: 'Vrvirksomhed', produktionsenhed: 'VrproduktionsEnhed', deltager: 'Vrdeltagerperson' };
    for (const [alias, root] of Object.entries(roots)) {
      const r = await search(`/${alias}/_search`, { size: 1 });
      expect(r.status).toBe(200);
      expect(Object.keys(r.json().hits.hits[0]._source)).toEqual([root]);
    }
    const all = await search('/_search', { query: { term: { 'VrproduktionsEnhed.pNummer': DEMO_HQ_PNUMMER } } });
    expect(all.json().hits.total).toBe(1);
    expect(all.json().hits.hits[0]._index).toMatch(/^cvr-p-/);
    expect(all.json()._shards.total).toBe(18);
    const counts = await Promise.all(
      ['/virksomhed/_search', '/produktionsenhed/_search', '/deltager/_search', '/_search'].map((p) =>
        search(p, { size: 0 }),
      ),
    );
    const [v, p, d, total] = counts.map((c) => c.json().hits.total as number);
    expect(v).toBe(25);
    expect(p).toBe(40);
    expect(d).toBeGreaterThanOrEqual(30);
    expect(total).toBe(v! + p! + d!);
  });

  it('accepts POST with JSON only', async () => {
    const get = await search('/virksomhed/_search', undefined, { method: 'GET' });
    expect(get.status).toBe(405);
    const text = await search('/virksomhed/_search', undefined, { contentType: 'text/plain', raw: '{"size":1}' });
    expect(text.status).toBe(406);
    const broken = await search('/virksomhed/_search', undefined, { raw: '{"query": {' });
    expect(broken.status).toBe(400);
    expect(broken.json().error.type).toBe('json_parse_exception');
    const empty = await search('/virksomhed/_search', undefined, { raw: '' });
    expect(empty.status).toBe(200);
    expect(empty.json().hits.hits).toHaveLength(10);
  });

  it('answers unknown aliases like ES and refuses URL parameters such as scroll', async () => {
    const unknown = await search('/virksomheder/_search', {});
    expect(unknown.status).toBe(404);
    expect(unknown.json().error.type).toBe('index_not_found_exception');
    // a client that drops the /cvr-permanent base path misses the alias, as it would upstream
    const base = sandbox.url.replace(/\/cvr-permanent$/, '');
    const rootAlias = await call(base, '/virksomhed/_search', {});
    expect(rootAlias.status).toBe(404);
    const scroll = await search('/virksomhed/_search?scroll=1m', {});
    expect(scroll.status).toBe(400);
    const pretty = await search('/virksomhed/_search?pretty', { size: 1 });
    expect(pretty.status).toBe(200);
    expect(pretty.text).toContain('\n  "hits"');
  });

  it('records the last request for tests', async () => {
    const body = { query: { term: { 'Vrvirksomhed.cvrNummer': DEMO_CVR } }, size: 1 };
    await search('/virksomhed/_search', body);
    expect(sandbox.stats.lastRequest).toMatchObject({
      method: 'POST',
      path: '/cvr-permanent/virksomhed/_search',
      body,
    });
    expect(sandbox.stats.lastRequest?.headers.authorization).toBe(AUTH);
    expect(sandbox.stats.lastRequest?.headers['content-type']).toBe('application/json');
  });
});

describe('register sandbox: query subset and ES 6 envelope', () => {
  it('finds a company by term on cvrNummer (number or string) in the ES 6 envelope', async () => {
    for (const value of [DEMO_CVR, String(DEMO_CVR)]) {
      const r = await search('/virksomhed/_search', { query: { term: { 'Vrvirksomhed.cvrNummer': value } }, size: 1 });
      expect(r.status).toBe(200);
      const body = r.json();
      expect(body).toMatchObject({ timed_out: false, _shards: { total: 6, successful: 6, skipped: 0, failed: 0 } });
      expect(typeof body.took).toBe('number');
      expect(body.hits.total).toBe(1);
      const hit = body.hits.hits[0];
      expect(hit).toMatchObject({ _index: 'cvr-v-20220630', _type: '_doc' });
      expect(hit._id).toBe(String(hit._source.Vrvirksomhed.enhedsNummer));
      expect(hit._score).toBeGreaterThan(0);
      expect(body.hits.max_score).toBe(hit._score);
      expect(hit._source.Vrvirksomhed.cvrNummer).toBe(DEMO_CVR);
      expect(hit._source.Vrvirksomhed.virksomhedMetadata.nyesteNavn.navn).toBe('Demo Data A/S');
    }
  });

  it('returns total 0, no hits and a null max_score for an unknown cvrNummer', async () => {
    const r = await search('/virksomhed/_search', {
      query: { term: { 'Vrvirksomhed.cvrNummer': UNKNOWN_CVR } },
      size: 1,
    });
    expect(r.json().hits).toEqual({ total: 0, max_score: null, hits: [] });
  });

  it('fails a non-numeric term on a numeric field like ES does', async () => {
    const r = await search('/virksomhed/_search', { query: { term: { 'Vrvirksomhed.cvrNummer': 'abc' } } });
    expect(r.status).toBe(400);
    expect(r.json().error).toMatchObject({
      type: 'search_phase_execution_exception',
      root_cause: [{ type: 'query_shard_exception' }],
    });
  });

  it('matches names with operator and, case-insensitively, across Danish letters', async () => {
    const names = async (query: unknown): Promise<string[]> => {
      const r = await search('/virksomhed/_search', {
        query: { match: { [COMPANY_NAME]: query } },
        size: 50,
        _source: [COMPANY_NAME],
      });
      expect(r.status).toBe(200);
      return r.json().hits.hits.map((h: any) => h._source.Vrvirksomhed.virksomhedMetadata.nyesteNavn.navn);
    };
    const demo = await names({ query: 'Demo', operator: 'and' });
    expect(demo.length).toBeGreaterThanOrEqual(4);
    expect(demo).toEqual(
      expect.arrayContaining(['Demo Data A/S', 'Demo Byg ApS', 'Demo Data Services ApS', 'Demo Holding ApS']),
    );
    expect((await names({ query: 'demo DATA', operator: 'and' })).sort()).toEqual([
      'Demo Data A/S',
      'Demo Data Services ApS',
    ]);
    expect(await names({ query: 'Demo Data A/S', operator: 'AND' })).toEqual(['Demo Data A/S']);
    // the default operator is or: any word suffices
    expect((await names('demo ærtebjerg')).length).toBe(demo.length + 1);
    expect(await names({ query: 'ÆRTEBJERG', operator: 'and' })).toEqual(['Bageriet Ærtebjerg ApS']);
    expect(await names({ query: 'østergaard landbrug', operator: 'and' })).toEqual(['Østergaard Landbrug I/S']);
    expect(await names({ query: 'Demo Ærtebjerg', operator: 'and' })).toEqual([]);
    // the newest name only: a former name is not in nyesteNavn
    expect(await names({ query: 'Demo Software', operator: 'and' })).toEqual([]);
  });

  it('reports hits.total before size and pages with from', async () => {
    const query = { match: { [COMPANY_NAME]: { query: 'Demo', operator: 'and' } } };
    const all = (await search('/virksomhed/_search', { query, size: 50 })).json();
    const first = (await search('/virksomhed/_search', { query, size: 1 })).json();
    const second = (await search('/virksomhed/_search', { query, size: 1, from: 1 })).json();
    expect(first.hits.total).toBe(all.hits.total);
    expect(first.hits.hits).toHaveLength(1);
    expect(second.hits.hits[0]._id).toBe(all.hits.hits[1]._id);
    expect(first.hits.hits[0]._id).toBe(all.hits.hits[0]._id);
    const scores = all.hits.hits.map((h: any) => h._score);
    expect([...scores].sort((a, b) => b - a)).toEqual(scores);
    const none = (await search('/virksomhed/_search', { query, size: 0 })).json();
    expect(none.hits.total).toBe(all.hits.total);
    expect(none.hits.hits).toEqual([]);
  });

  it('enforces the 3000-document result window and non-negative size/from', async () => {
    expect((await search('/virksomhed/_search', { from: 2990, size: 10 })).status).toBe(200);
    const over = await search('/virksomhed/_search', { from: 2990, size: 11 });
    expect(over.status).toBe(400);
    expect(over.json().error.type).toBe('search_phase_execution_exception');
    expect(over.json().error.root_cause[0].reason).toContain('Result window is too large');
    expect((await search('/virksomhed/_search', { size: 3001 })).status).toBe(400);
    expect((await search('/virksomhed/_search', { size: -1 })).status).toBe(400);
    expect((await search('/virksomhed/_search', { from: -5 })).status).toBe(400);
  });

  it('filters _source with include lists of dotted paths', async () => {
    const query = { term: { 'Vrvirksomhed.cvrNummer': DEMO_CVR } };
    const limited = await search('/virksomhed/_search', {
      query,
      size: 1,
      _source: [
        'Vrvirksomhed.cvrNummer',
        'Vrvirksomhed.virksomhedMetadata.nyesteNavn',
        'Vrvirksomhed.deltagerRelation',
      ],
    });
    const doc = limited.json().hits.hits[0]._source.Vrvirksomhed;
    expect(Object.keys(doc).sort()).toEqual(['cvrNummer', 'deltagerRelation', 'virksomhedMetadata']);
    expect(Object.keys(doc.virksomhedMetadata)).toEqual(['nyesteNavn']);
    expect(doc.virksomhedMetadata.nyesteNavn).toMatchObject({ navn: 'Demo Data A/S', periode: { gyldigTil: null } });
    expect(doc.deltagerRelation.length).toBeGreaterThan(3);
    const leaf = await search('/virksomhed/_search', {
      query,
      _source: 'Vrvirksomhed.deltagerRelation.deltager.enhedstype',
    });
    const relations = leaf.json().hits.hits[0]._source.Vrvirksomhed.deltagerRelation;
    expect(
      relations.every(
        (r: any) => Object.keys(r).join() === 'deltager' && Object.keys(r.deltager).join() === 'enhedstype',
      ),
    ).toBe(true);
    const wildcard = await search('/virksomhed/_search', {
      query,
      _source: { includes: ['Vrvirksomhed.virksomhedMetadata.*'], excludes: ['*.nyesteBeliggenhedsadresse'] },
    });
    const metadata = wildcard.json().hits.hits[0]._source.Vrvirksomhed.virksomhedMetadata;
    expect(metadata.sammensatStatus).toBe('NORMAL');
    expect(metadata).not.toHaveProperty('nyesteBeliggenhedsadresse');
    const none = await search('/virksomhed/_search', { query, _source: false });
    expect(none.json().hits.hits[0]).not.toHaveProperty('_source');
  });

  it('finds production units by current parent or by any parent ever', async () => {
    const units = async (field: string): Promise<any[]> => {
      const r = await search('/produktionsenhed/_search', { query: { term: { [field]: DEMO_CVR } }, size: 50 });
      expect(r.json().hits.total).toBe(r.json().hits.hits.length);
      return r.json().hits.hits.map((h: any) => h._source.VrproduktionsEnhed);
    };
    const current = await units('VrproduktionsEnhed.produktionsEnhedMetadata.nyesteCvrNummerRelation');
    const ever = await units('VrproduktionsEnhed.virksomhedsrelation.cvrNummer');
    expect(current.map((u) => u.pNummer)).toContain(DEMO_HQ_PNUMMER);
    expect(current.map((u) => u.pNummer)).toContain(DEMO_CEASED_PNUMMER);
    expect(current.map((u) => u.pNummer)).not.toContain(MOVED_PNUMMER);
    expect(ever.length).toBe(current.length + 1);
    expect(ever.find((u) => u.pNummer === MOVED_PNUMMER).produktionsEnhedMetadata.nyesteCvrNummerRelation).toBe(
      DEMO_SUBSIDIARY_CVR,
    );
    expect(current.find((u) => u.pNummer === DEMO_CEASED_PNUMMER).produktionsEnhedMetadata.sammensatStatus).toBe(
      'Ophørt',
    );
  });

  it('finds persons with bool.must of an AND name match and a match on enhedstype', async () => {
    const persons = async (navn: string): Promise<any[]> => {
      const r = await search('/deltager/_search', {
        query: {
          bool: {
            must: [
              { match: { 'Vrdeltagerperson.navne.navn': { query: navn, operator: 'and' } } },
              { match: { 'Vrdeltagerperson.enhedstype': 'PERSON' } },
            ],
          },
        },
        size: 10,
      });
      expect(r.status).toBe(200);
      return r.json().hits.hits.map((h: any) => h._source.Vrdeltagerperson);
    };
    const namesakes = await persons(NAMESAKE_NAME);
    expect(namesakes.map((p) => p.enhedsNummer).sort()).toEqual([...NAMESAKE_ENHEDSNUMRE].sort());
    expect(new Set(namesakes.map((p) => p.virksomhedSummariskRelation[0].virksomhed.cvrNummer)).size).toBe(2);
    // an AND match also hits people with extra middle names
    expect((await persons('jens hansen')).length).toBe(3);
    const lars = await persons('Lars Bøgh Jensen');
    expect(lars.map((p) => p.enhedsNummer)).toEqual([BENEFICIAL_OWNER_ENHEDSNUMMER]);
    expect(lars[0].virksomhedSummariskRelation.map((r: any) => r.virksomhed.cvrNummer)).toEqual(
      expect.arrayContaining([DEMO_CVR, DEMO_HOLDING_CVR]),
    );
    // an estate is ANDEN_DELTAGER, not PERSON
    expect(await persons('Boet efter Karen Mikkelsen')).toEqual([]);
  });

  it('treats enhedstype as analysed text: a term on "PERSON" finds nothing, a match does', async () => {
    const term = await search('/deltager/_search', { query: { term: { 'Vrdeltagerperson.enhedstype': 'PERSON' } } });
    expect(term.json().hits.total).toBe(0);
    const match = await search('/deltager/_search', { query: { match: { 'Vrdeltagerperson.enhedstype': 'PERSON' } } });
    expect(match.json().hits.total).toBeGreaterThanOrEqual(30);
  });

  it('answers everything outside the subset with a 400 parsing_exception', async () => {
    const bodies: unknown[] = [
      { query: { wildcard: { [COMPANY_NAME]: 'demo*' } } },
      { query: { no_such_query: {} } },
      { query: { bool: { should: [{ match_all: {} }] } } },
      { query: { term: { 'Vrvirksomhed.sammensatStatus': 'NORMAL' } } },
      { query: { match: { [COMPANY_NAME]: { query: 'demo', fuzziness: 'AUTO' } } } },
      { query: { term: { 'Vrvirksomhed.cvrNummer': DEMO_CVR }, match_all: {} } },
      { query: { match: { [COMPANY_NAME]: 'a', 'Vrvirksomhed.navne.navn': 'b' } } },
      { query: { match_all: {} }, sort: [{ 'Vrvirksomhed.cvrNummer': 'asc' }] },
      { query: { match_all: {} }, unknown_key: 1 },
      { _source: 42 },
      [1, 2],
    ];
    for (const body of bodies) {
      const r = await search('/virksomhed/_search', body);
      expect(r.status, JSON.stringify(body)).toBe(400);
      const error = r.json();
      expect(error.status).toBe(400);
      expect(error.error.type).toBe('parsing_exception');
      expect(typeof error.error.reason).toBe('string');
      expect(error.error.root_cause[0]).toMatchObject({ type: 'parsing_exception', reason: error.error.reason });
    }
  });
});

describe('register sandbox: demo data', () => {
  let companies: any[];
  let units: any[];
  let participants: any[];

  beforeAll(async () => {
    const fetchAll = async (alias: string): Promise<any[]> =>
      (await search(`/${alias}/_search`, { size: 100 })).json().hits.hits.map((h: any) => h._source);
    companies = (await fetchAll('virksomhed')).map((s) => s.Vrvirksomhed);
    units = (await fetchAll('produktionsenhed')).map((s) => s.VrproduktionsEnhed);
    participants = (await fetchAll('deltager')).map((s) => s.Vrdeltagerperson);
  });

  const company = (cvr: number): any => companies.find((c) => c.cvrNummer === cvr);
  const relations = (cvr: number): any[] => company(cvr).deltagerRelation;
  const memberValues = (relation: any, organ: string, type: string): any[] =>
    relation.organisationer
      .filter((o: any) => o.organisationsNavn[0].navn === organ)
      .flatMap((o: any) =>
        o.medlemsData.flatMap((m: any) =>
          m.attributter.filter((a: any) => a.type === type).flatMap((a: any) => a.vaerdier),
        ),
      );

  it('has about 25 companies, 40 units and 30 participants with unique ids', () => {
    expect(companies).toHaveLength(25);
    expect(units).toHaveLength(40);
    expect(participants.length).toBeGreaterThanOrEqual(30);
    expect(new Set(companies.map((c) => c.cvrNummer)).size).toBe(25);
    expect(new Set(units.map((u) => u.pNummer)).size).toBe(40);
    for (const c of companies) expect(String(c.cvrNummer)).toMatch(/^\d{8}$/);
    for (const u of units) expect(String(u.pNummer)).toMatch(/^\d{10}$/);
  });

  it('keeps every vaerdi a string and a periode on every history element', () => {
    let values = 0;
    let elements = 0;
    walk([companies, units, participants], (node, key) => {
      if ('vaerdi' in node) {
        values++;
        expect(typeof node.vaerdi).toBe('string');
      }
      if (key !== null && HISTORY_ARRAYS.has(key)) {
        elements++;
        expect(node).toHaveProperty('periode');
        expect(node).toHaveProperty('sidstOpdateret');
        expect(Object.keys(node.periode as object).sort()).toEqual(['gyldigFra', 'gyldigTil']);
      }
    });
    expect(values).toBeGreaterThan(500);
    expect(elements).toBeGreaterThan(1000);
  });

  it('keeps metadata consistent with the history arrays', () => {
    for (const c of companies) {
      const m = c.virksomhedMetadata;
      expect(m.nyesteNavn).toEqual(lastOf(c.navne));
      expect(m.nyesteVirksomhedsform).toEqual(lastOf(c.virksomhedsform));
      expect(m.nyesteBeliggenhedsadresse).toEqual(lastOf(c.beliggenhedsadresse));
      expect(m.nyesteHovedbranche).toEqual(lastOf(c.hovedbranche));
      expect(m.nyesteAarsbeskaeftigelse).toEqual(
        c.aarsbeskaeftigelse.length === 0 ? null : lastOf(c.aarsbeskaeftigelse),
      );
      expect(m.nyesteKvartalsbeskaeftigelse).toEqual(
        c.kvartalsbeskaeftigelse.length === 0 ? null : lastOf(c.kvartalsbeskaeftigelse),
      );
      expect(m.antalPenheder).toBe(c.penheder.filter((p: any) => p.periode.gyldigTil === null).length);
      expect(m.stiftelsesDato).toBe(c.livsforloeb[0].periode.gyldigFra);
      expect(typeof m.nyesteHovedbranche.branchekode).toBe('string');
      for (const p of c.penheder) expect(units.some((u) => u.pNummer === p.pNummer)).toBe(true);
    }
    for (const u of units) {
      const m = u.produktionsEnhedMetadata;
      expect(m.nyesteNavn).toEqual(lastOf(u.navne));
      expect(m.nyesteBeliggenhedsadresse).toEqual(lastOf(u.beliggenhedsadresse));
      expect(m.nyesteHovedbranche).toEqual(lastOf(u.hovedbranche));
      expect(m.nyesteCvrNummerRelation).toBe(lastOf(u.virksomhedsrelation as any[]).cvrNummer);
      expect(m.sammensatStatus).toBe(lastOf(u.livsforloeb as any[]).periode.gyldigTil === null ? 'Aktiv' : 'Ophørt');
    }
  });

  it('mirrors every person relation on the participant document', () => {
    for (const c of companies) {
      for (const r of c.deltagerRelation) {
        if (r.deltager.enhedstype === 'VIRKSOMHED') {
          expect(company(r.deltager.forretningsnoegle)?.enhedsNummer).toBe(r.deltager.enhedsNummer);
          continue;
        }
        const p = participants.find((x) => x.enhedsNummer === r.deltager.enhedsNummer);
        const mirrored = p.virksomhedSummariskRelation.find((s: any) => s.virksomhed.cvrNummer === c.cvrNummer);
        expect(mirrored.organisationer).toEqual(r.organisationer);
        expect(r.deltager.forretningsnoegle).toBeNull();
      }
    }
  });

  it('covers the cases the connector must handle', () => {
    // 0-prefixed industry code, kept as a string
    expect(company(AGRICULTURE_CVR).virksomhedMetadata.nyesteHovedbranche.branchekode).toBe('011100');
    expect(company(ESTATE_OWNED_CVR).virksomhedMetadata.nyesteHovedbranche.branchekode).toBe('031100');
    // advertising protection on a company and its units
    expect(company(PROTECTED_CVR).reklamebeskyttet).toBe(true);
    expect(
      units
        .filter((u) => u.produktionsEnhedMetadata.nyesteCvrNummerRelation === PROTECTED_CVR)
        .every((u) => u.reklamebeskyttet),
    ).toBe(true);
    // a dissolved company: everything closed
    const dissolved = company(DISSOLVED_CVR);
    expect(dissolved.virksomhedMetadata.sammensatStatus).toBe('OPLØSTEFTERFRIVILLIGLIKVIDATION');
    expect(dissolved.livsforloeb[0].periode.gyldigTil).toBe('2021-06-30');
    expect(dissolved.virksomhedMetadata.nyesteNavn.periode.gyldigTil).not.toBeNull();
    // a 100 % subsidiary: the owner's CVR in forretningsnoegle, enhedsNummer an internal number
    const parent = relations(DEMO_SUBSIDIARY_CVR).find(
      (r) => r.deltager.enhedstype === 'VIRKSOMHED' && memberValues(r, 'EJERREGISTER', 'EJERANDEL_PROCENT').length > 0,
    );
    expect(parent.deltager.forretningsnoegle).toBe(DEMO_CVR);
    expect(parent.deltager.enhedsNummer).not.toBe(DEMO_CVR);
    expect(memberValues(parent, 'EJERREGISTER', 'EJERANDEL_PROCENT').map((v) => v.vaerdi)).toEqual(['1.0']);
    // legal owners at the band lower bounds
    const legal = companies.flatMap((c) =>
      c.deltagerRelation.flatMap((r: any) => memberValues(r, 'EJERREGISTER', 'EJERANDEL_PROCENT').map((v) => v.vaerdi)),
    );
    expect(legal).toEqual(expect.arrayContaining(['0.05', '0.3333', '0.6667', '1.0']));
    // a beneficial owner at an exact 0.688 with a different voting share
    const lars = relations(DEMO_CVR).find((r) => r.deltager.enhedsNummer === BENEFICIAL_OWNER_ENHEDSNUMMER);
    const share = memberValues(lars, 'Reelle ejere', 'EJERANDEL_PROCENT').find((v) => v.periode.gyldigTil === null);
    const votes = memberValues(lars, 'Reelle ejere', 'EJERANDEL_STEMMERET_PROCENT').find(
      (v) => v.periode.gyldigTil === null,
    );
    expect(share.vaerdi).toBe('0.688');
    expect(votes.vaerdi).not.toBe('0.688');
    // an ANDEN_DELTAGER owner
    expect(
      relations(ESTATE_OWNED_CVR).some(
        (r) =>
          r.deltager.enhedstype === 'ANDEN_DELTAGER' && memberValues(r, 'EJERREGISTER', 'EJERANDEL_PROCENT').length > 0,
      ),
    ).toBe(true);
    expect(
      participants
        .filter((p) => p.enhedstype === 'ANDEN_DELTAGER')
        .every((p) => p.attributter.some((a: any) => a.type === 'ANDRE_DELT_TYPE')),
    ).toBe(true);
    // former board members and owners, an auditor
    const demo = relations(DEMO_CVR);
    const closed = (organ: string, type: string): boolean =>
      demo.some((r) => {
        const values = memberValues(r, organ, type);
        return values.length > 0 && values.every((v) => v.periode.gyldigTil !== null);
      });
    expect(closed('Bestyrelse', 'FUNKTION')).toBe(true);
    expect(closed('EJERREGISTER', 'EJERANDEL_PROCENT')).toBe(true);
    expect(demo.some((r) => r.organisationer.some((o: any) => o.hovedtype === 'REVISION'))).toBe(true);
    expect(demo.some((r) => r.deltager.enhedstype === 'ANDEN_DELTAGER')).toBe(true);
    // code-only headcounts
    const hc = company(DEMO_CVR).virksomhedMetadata.nyesteKvartalsbeskaeftigelse;
    expect(hc).toMatchObject({ antalAnsatte: null, intervalKodeAntalAnsatte: 'ANTAL_20_49' });
    // capital 1000000.00 DKK in the open period
    const attribute = (type: string): any =>
      company(DEMO_CVR)
        .attributter.find((a: any) => a.type === type)
        .vaerdier.find((v: any) => v.periode.gyldigTil === null);
    expect(attribute('KAPITAL').vaerdi).toBe('1000000.00');
    expect(attribute('KAPITALVALUTA').vaerdi).toBe('DKK');
    // a ceased unit and a unit that moved to another company
    expect(units.find((u) => u.pNummer === DEMO_CEASED_PNUMMER).produktionsEnhedMetadata.sammensatStatus).toBe(
      'Ophørt',
    );
    expect(units.find((u) => u.pNummer === MOVED_PNUMMER).virksomhedsrelation.map((r: any) => r.cvrNummer)).toEqual([
      DEMO_CVR,
      DEMO_SUBSIDIARY_CVR,
    ]);
  });
});

describe('register sandbox: faults', () => {
  const ok = { query: { term: { 'Vrvirksomhed.cvrNummer': DEMO_CVR } }, size: 1 };

  it('unauthorized: 401 even with the right credentials', async () => {
    sandbox.setFault('unauthorized');
    const r = await search('/virksomhed/_search', ok);
    expect(r.status).toBe(401);
    expect(r.contentType).toMatch(/^text\/plain/);
  });

  it('forbidden: 403', async () => {
    sandbox.setFault('forbidden');
    expect((await search('/virksomhed/_search', ok)).status).toBe(403);
  });

  it('server_error: a 5xx with an ES error body', async () => {
    sandbox.setFault('server_error');
    const r = await search('/virksomhed/_search', ok);
    expect(r.status).toBeGreaterThanOrEqual(500);
    expect(r.json().error.type).toBe('search_phase_execution_exception');
  });

  it('html_200: a 200 whose body is an HTML page, not JSON', async () => {
    sandbox.setFault('html_200');
    const r = await search('/virksomhed/_search', ok);
    expect(r.status).toBe(200);
    expect(r.contentType).toMatch(/^text\/html/);
    expect(() => JSON.parse(r.text)).toThrow();
  });

  it('slow: answers normally after the delay', async () => {
    sandbox.setFault('slow', { delayMs: 20 });
    const r = await search('/virksomhed/_search', ok);
    expect(r.status).toBe(200);
    expect(r.json().hits.total).toBe(1);
  });

  it('can be switched over HTTP without credentials', async () => {
    const base = sandbox.url.replace(/\/cvr-permanent$/, '');
    const set = await call(base, '/__sandbox/fault', { fault: 'forbidden' }, { auth: null });
    expect(set.status).toBe(200);
    expect(sandbox.fault).toBe('forbidden');
    expect((await search('/virksomhed/_search', ok)).status).toBe(403);
    const slow = await call(base, '/__sandbox/fault', { fault: 'slow', delayMs: 10 }, { auth: null });
    expect(slow.json()).toEqual({ fault: 'slow', delayMs: 10 });
    expect((await search('/virksomhed/_search', ok)).status).toBe(200);
    expect((await call(base, '/__sandbox/fault', { fault: 'explode' }, { auth: null })).status).toBe(400);
    expect((await call(base, '/__sandbox/fault', { fault: 'none' }, { auth: null })).status).toBe(200);
    expect((await call(base, '/__sandbox/fault', undefined, { method: 'GET', auth: null })).json()).toMatchObject({
      fault: 'none',
    });
    expect((await search('/virksomhed/_search', ok)).status).toBe(200);
    expect(() => sandbox.setFault('explode' as never)).toThrow();
  });

  it('slow: a client that gives up is no longer counted as in flight', async () => {
    sandbox.setFault('slow', { delayMs: 60_000 });
    const controller = new AbortController();
    const pending = search('/virksomhed/_search', ok, { signal: controller.signal });
    await vi.waitFor(() => expect(sandbox.stats.inFlight).toBe(1));
    controller.abort();
    await expect(pending).rejects.toThrow();
    await vi.waitFor(() => expect(sandbox.stats.inFlight).toBe(0));
  });
});

describe('register sandbox: concurrency counter', () => {
  it('counts overlap above maxConcurrent and releases held requests on close', async () => {
    const local = await startRegisterSandbox({ port: 0, username: USER, password: PASSWORD, maxConcurrent: 4 });
    try {
      local.setFault('slow', { delayMs: 60_000 });
      const fire = (): Promise<Reply> => call(local.url, '/virksomhed/_search', { size: 1 });
      const pending = [fire(), fire(), fire(), fire()];
      for (const p of pending) p.catch(() => undefined);
      await vi.waitFor(() => expect(local.stats.inFlight).toBe(4));
      expect(local.stats.maxConcurrentSeen).toBe(4);
      expect(local.stats.overLimitEvents).toBe(0);
      const more = [fire(), fire()];
      for (const p of more) p.catch(() => undefined);
      await vi.waitFor(() => expect(local.stats.inFlight).toBe(6));
      expect(local.stats.maxConcurrentSeen).toBe(6);
      expect(local.stats.overLimitEvents).toBe(2);
      expect(local.stats.requests).toBe(6);
      await local.close();
      const settled = await Promise.allSettled([...pending, ...more]);
      expect(settled.every((s) => s.status === 'rejected')).toBe(true);
    } finally {
      await local.close();
    }
  });

  it('sequential calls never count as overlap', async () => {
    const local = await startRegisterSandbox({ port: 0, username: USER, password: PASSWORD, maxConcurrent: 1 });
    try {
      for (let i = 0; i < 3; i++) expect((await call(local.url, '/virksomhed/_search', { size: 1 })).status).toBe(200);
      expect(local.stats).toMatchObject({ requests: 3, maxConcurrentSeen: 1, overLimitEvents: 0 });
      const base = local.url.replace(/\/cvr-permanent$/, '');
      expect((await call(base, '/__sandbox/stats', undefined, { method: 'GET', auth: null })).json()).toMatchObject({
        requests: 3,
        overLimitEvents: 0,
      });
    } finally {
      await local.close();
    }
  });
});

describe('register sandbox: script mode', () => {
  it('starts with demo/demo and prints its URL when run with node', async () => {
    const script = fileURLToPath(new URL('../sandbox/register/server.ts', import.meta.url));
    const child = spawn(process.execPath, [script], {
      env: { ...process.env, REGISTER_SANDBOX_PORT: '0' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    try {
      let output = '';
      child.stdout.setEncoding('utf8');
      const url = await new Promise<string>((resolve, reject) => {
        child.stdout.on('data', (chunk: string) => {
          output += chunk;
          const line = output.split('\n')[0];
          if (output.includes('\n') && line !== undefined) resolve(line.trim());
        });
        child.once('exit', (code) => reject(new Error(`sandbox exited early with ${String(code)}`)));
      });
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/cvr-permanent$/);
      const demoAuth = `Basic ${Buffer.from('demo:demo').toString('base64')}`;
      const r = await call(
        url,
        '/virksomhed/_search',
        { query: { term: { 'Vrvirksomhed.cvrNummer': DEMO_CVR } } },
        { auth: demoAuth },
      );
      expect(r.json().hits.total).toBe(1);
    } finally {
      child.kill('SIGTERM');
      if (child.exitCode === null) await once(child, 'exit');
    }
  });
});
