// Company-register handlers against a nock-faked CVR distribution API (upstreams/register.md):
// the exact `_search` bodies and paths, the Basic header, the §2/§3 mapping of realistic ES 6
// documents (tricky cases included), `{ found: false }`, error mapping, no secret anywhere, and
// every result checked by the generated output validator.
import { Writable } from 'node:stream';
import nock from 'nock';
import pino from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { RegisterToolName, RegisterTools } from '../generated/register/contract.ts';
import { registerDescriptor } from '../generated/register/descriptor.ts';
import * as validators from '../generated/register/validators.js';
import { registerHandlers } from '../generated/register/handlers.ts';
import { sharePercent } from '../handlers/register/mapping.ts';
import type { CompiledValidator } from '../runtime/handler-api/descriptor-types.ts';
import type { Credential } from '../runtime/handler-api/tool-context.ts';
import { ToolError, formatText } from '../runtime/handler-api/tool-error.ts';
import { UpstreamError, type UpstreamClient } from '../runtime/handler-api/upstream-types.ts';
import { testContext, type TestToolContext } from './support/tool-context.ts';

const ORIGIN = 'https://cvr.test';
const BASE = `${ORIGIN}/cvr-permanent`;
const UP: Credential = { kind: 'managed_basic', username: 'u', password: 'p' };
const BASIC_UP = `Basic ${Buffer.from('u:p').toString('base64')}`; // dTpw
const SECRET = 'Hemmelig-Pa55word';
const SECRET_CREDENTIAL: Credential = { kind: 'managed_basic', username: 'cvr-svc', password: SECRET };
const SECRET_HEADER = Buffer.from(`cvr-svc:${SECRET}`).toString('base64');

// ---------------------------------------------------------------------------------------------
// Harness

interface Harness {
  readonly ctx: TestToolContext;
  readonly logs: string[];
}

function harness(tool: RegisterToolName, credential: Credential | null = UP, upstream?: UpstreamClient): Harness {
  const logs: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      logs.push(chunk.toString('utf8'));
      done();
    },
  });
  const ctx = testContext({
    descriptor: registerDescriptor,
    tool,
    credential,
    baseUrl: BASE,
    logger: pino({ level: 'trace' }, stream),
    ...(upstream ? { upstream } : {}),
  });
  return { ctx, logs };
}

async function call<K extends RegisterToolName>(
  tool: K,
  args: RegisterTools[K]['args'],
  credential: Credential | null = UP,
): Promise<RegisterTools[K]['result']> {
  const handler = registerHandlers[tool] as (
    a: RegisterTools[K]['args'],
    c: TestToolContext,
  ) => Promise<RegisterTools[K]['result']>;
  const result = await handler(args, harness(tool, credential).ctx);
  expectValid(tool, result);
  return result;
}

function expectValid(tool: RegisterToolName, result: unknown): void {
  const validate = (validators as unknown as Record<string, CompiledValidator>)[`output_${tool}`]!;
  const ok = validate(result);
  expect(validate.errors ?? [], `output_${tool}`).toEqual([]);
  expect(ok).toBe(true);
}

/** Intercepts one `_search`, recording the body; checks the Basic header. */
function intercept(
  index: string,
  reply: { status?: number; body: unknown; headers?: Record<string, string> },
  authorization = BASIC_UP,
): { body?: unknown; scope: nock.Scope } {
  const seen: { body?: unknown; scope: nock.Scope } = { scope: nock(ORIGIN) };
  seen.scope = nock(ORIGIN)
    .matchHeader('authorization', authorization)
    .matchHeader('content-type', /application\/json/)
    .post(`/cvr-permanent/${index}/_search`, (body: unknown) => {
      seen.body = body;
      return true;
    })
    .reply(
      reply.status ?? 200,
      typeof reply.body === 'string' ? reply.body : JSON.stringify(reply.body),
      reply.headers ?? { 'content-type': 'application/json' },
    );
  return seen;
}

function es(
  total: number | { value: number; relation: string },
  sources: readonly Record<string, unknown>[],
  ids: readonly (string | undefined)[] = [],
): unknown {
  return {
    took: 3,
    timed_out: false,
    _shards: { total: 6, successful: 6, skipped: 0, failed: 0 },
    hits: {
      total,
      max_score: 11.2,
      hits: sources.map((source, i) => ({
        _index: 'cvr-v-20220630',
        _type: '_doc',
        _id: ids[i] ?? String(4_000_000 + i),
        _score: 11.2,
        _source: source,
      })),
    },
  };
}

type Periode = { gyldigFra: string | null; gyldigTil: string | null };
const open = (gyldigFra: string | null): Periode => ({ gyldigFra, gyldigTil: null });
const closed = (gyldigFra: string | null, gyldigTil: string): Periode => ({ gyldigFra, gyldigTil });
const value = (vaerdi: string, periode: Periode) => ({
  vaerdi,
  periode,
  sidstOpdateret: '2024-05-02T10:00:00.000+02:00',
});
const attr = (type: string, vaerdier: unknown[], vaerditype = 'string') => ({
  type,
  vaerditype,
  sekvensnr: 0,
  vaerdier,
});
const org = (hovedtype: string, navn: string, medlemsData: unknown[], navnPeriode = open('1999-03-01')) => ({
  enhedsNummerOrganisation: 900_000 + navn.length,
  hovedtype,
  organisationsNavn: [{ navn, periode: navnPeriode }],
  attributter: [],
  medlemsData,
});
const member = (...attributter: unknown[]) => ({ attributter });

// ---------------------------------------------------------------------------------------------
// Fixture documents shaped like register.md §2

const ADDRESS_DOC = {
  landekode: 'DK',
  fritekst: null,
  vejkode: 1234,
  kommune: { kommuneKode: 101, kommuneNavn: 'KØBENHAVN', periode: open(null) },
  husnummerFra: 12,
  husnummerTil: null,
  bogstavFra: 'B',
  etage: '3',
  sidedoer: 'tv',
  conavn: null,
  postboks: null,
  vejnavn: 'Østergade',
  bynavn: null,
  postnummer: 1100,
  postdistrikt: 'København K',
  periode: open('2015-01-01'),
};

const NORDISK = {
  Vrvirksomhed: {
    cvrNummer: 12345678,
    reklamebeskyttet: true,
    attributter: [
      attr(
        'KAPITAL',
        [value('500000.00', closed('1999-03-01', '2012-06-30')), value('1000000.00', open('2012-07-01'))],
        'decimal',
      ),
      attr('KAPITALVALUTA', [value('DKK', open('1999-03-01'))]),
      attr('FORMÅL', [value('At drive handel med træ.', open('1999-03-01'))]),
    ],
    virksomhedMetadata: {
      nyesteNavn: { navn: 'Nordisk Træ A/S', periode: open('2001-01-01') },
      nyesteVirksomhedsform: { virksomhedsformkode: 60, kortBeskrivelse: 'A/S', langBeskrivelse: 'Aktieselskab' },
      nyesteBeliggenhedsadresse: ADDRESS_DOC,
      nyesteHovedbranche: { branchekode: '023000', branchetekst: 'Skovning', periode: open('2008-01-01') },
      sammensatStatus: 'NORMAL',
      stiftelsesDato: '1999-03-01',
      nyesteAarsbeskaeftigelse: {
        aar: 2023,
        antalAnsatte: 24,
        antalAarsvaerk: 22,
        antalInklusivEjere: null,
        intervalKodeAntalAnsatte: 'ANTAL_20_29',
        intervalKodeAntalAarsvaerk: 'ANTAL_20_29',
        intervalKodeAntalInklusivEjere: null,
      },
      nyesteKvartalsbeskaeftigelse: {
        aar: 2024,
        kvartal: 1,
        antalAnsatte: null,
        antalAarsvaerk: null,
        intervalKodeAntalAnsatte: 'ANTAL_20_49',
        intervalKodeAntalAarsvaerk: 'ANTAL_10_19',
      },
      nyesteMaanedsbeskaeftigelse: {
        aar: 2024,
        maaned: 4,
        antalAnsatte: null,
        antalAarsvaerk: null,
        intervalKodeAntalAnsatte: 'ANTAL_20_49',
        intervalKodeAntalAarsvaerk: 'ANTAL_20_49',
      },
      nyesteErstMaanedsbeskaeftigelse: null,
    },
  },
};

/** A dissolved company with sparse metadata: no address, no form, no headcount. */
const OPLOEST = {
  Vrvirksomhed: {
    cvrNummer: 23456789,
    reklamebeskyttet: false,
    virksomhedMetadata: {
      nyesteNavn: { navn: 'Nordisk Træ Holding ApS', periode: closed('2005-01-01', '2019-12-31') },
      nyesteVirksomhedsform: null,
      nyesteBeliggenhedsadresse: null,
      nyesteHovedbranche: { branchekode: '642020', branchetekst: 'Ikke-finansielle holdingselskaber' },
      sammensatStatus: 'OPLØST EFTER FUSION',
      stiftelsesDato: '2005-01-01',
      nyesteAarsbeskaeftigelse: null,
      nyesteKvartalsbeskaeftigelse: null,
      nyesteMaanedsbeskaeftigelse: null,
    },
  },
};

const NORDISK_COMPANY = {
  cvrNummer: 12345678,
  navn: 'Nordisk Træ A/S',
  status: 'NORMAL',
  virksomhedsform: 'A/S',
  branchekode: '023000',
  branchetekst: 'Skovning',
  adresse: {
    vejnavn: 'Østergade',
    husnummerFra: 12,
    bogstavFra: 'B',
    etage: '3',
    sidedoer: 'tv',
    postnummer: 1100,
    postdistrikt: 'København K',
    bynavn: null,
    kommune: 'KØBENHAVN',
    landekode: 'DK',
    conavn: null,
    postboks: null,
  },
  stiftelsesDato: '1999-03-01',
  // The newest series (April 2024) wins although only codes are known; counts stay null.
  beskaeftigelse: {
    aar: 2024,
    kvartal: null,
    maaned: 4,
    antalAnsatte: null,
    antalAarsvaerk: null,
    intervalKodeAntalAnsatte: 'ANTAL_20_49',
    intervalKodeAntalAarsvaerk: 'ANTAL_20_49',
  },
  reklamebeskyttet: true,
};

const COMPANY_SOURCE = [
  'Vrvirksomhed.cvrNummer',
  'Vrvirksomhed.reklamebeskyttet',
  'Vrvirksomhed.virksomhedMetadata.nyesteNavn',
  'Vrvirksomhed.virksomhedMetadata.nyesteVirksomhedsform',
  'Vrvirksomhed.virksomhedMetadata.nyesteBeliggenhedsadresse',
  'Vrvirksomhed.virksomhedMetadata.nyesteHovedbranche',
  'Vrvirksomhed.virksomhedMetadata.sammensatStatus',
  'Vrvirksomhed.virksomhedMetadata.stiftelsesDato',
  'Vrvirksomhed.virksomhedMetadata.nyesteAarsbeskaeftigelse',
  'Vrvirksomhed.virksomhedMetadata.nyesteKvartalsbeskaeftigelse',
  'Vrvirksomhed.virksomhedMetadata.nyesteMaanedsbeskaeftigelse',
  'Vrvirksomhed.virksomhedMetadata.nyesteErstMaanedsbeskaeftigelse',
];

const deltager = (
  enhedsNummer: number,
  enhedstype: string,
  navne: unknown[],
  forretningsnoegle: number | string | null = enhedsNummer,
) => ({
  enhedsNummer,
  enhedstype,
  forretningsnoegle,
  organisationstype: null,
  sidstOpdateret: '2024-01-02T00:00:00.000+01:00',
  navne,
});

const OWNERS_DOC = {
  Vrvirksomhed: {
    cvrNummer: 12345678,
    virksomhedMetadata: { nyesteNavn: { navn: 'Nordisk Træ A/S', periode: open('2001-01-01') } },
    deltagerRelation: [
      {
        // CEO, board chair (formerly member), legal and beneficial owner with different values.
        deltager: deltager(4000001, 'PERSON', [
          { navn: 'Anna Jensen', periode: closed('1999-03-01', '2010-05-01') },
          { navn: 'Anna Holm Jensen', periode: open('2010-05-01') },
        ]),
        kontorsteder: [],
        organisationer: [
          org('LEDELSESORGAN', 'Direktion', [member(attr('FUNKTION', [value('adm. dir', open('2012-01-01'))]))]),
          org('LEDELSESORGAN', 'Bestyrelse', [
            member(
              attr('FUNKTION', [
                value('MEDLEM', closed('2010-01-01', '2015-04-30')),
                value('FORMAND', open('2015-05-01')),
              ]),
              attr('VALGFORM', [value('Generalforsamling', open('2010-01-01'))]),
            ),
          ]),
          org('REGISTER', 'EJERREGISTER', [
            member(
              attr(
                'EJERANDEL_PROCENT',
                [value('0.3333', closed('2010-01-01', '2018-03-31')), value('0.6667', open('2018-04-01'))],
                'decimal',
              ),
              attr('EJERANDEL_STEMMERET_PROCENT', [value('0.6667', open('2018-04-01'))], 'decimal'),
              attr('EJERANDEL_MEDDELELSE_DATO', [value('2018-04-03', open('2018-04-01'))], 'date'),
            ),
          ]),
          org('REGISTER', 'Reelle ejere', [
            member(
              attr('EJERANDEL_PROCENT', [value('0.7', open('2018-04-01'))], 'decimal'),
              attr('EJERANDEL_STEMMERET_PROCENT', [value('0.7', open('2018-04-01'))], 'decimal'),
            ),
          ]),
        ],
      },
      {
        // A company owner: its CVR number is the business key, never the enhedsNummer.
        deltager: deltager(
          4000002,
          'VIRKSOMHED',
          [{ navn: 'Moder Holding ApS', periode: open('2004-01-01') }],
          87654321,
        ),
        organisationer: [
          org('REGISTER', 'EJERREGISTER', [
            member(
              attr('EJERANDEL_PROCENT', [value('0.05', open('2019-01-01'))], 'decimal'),
              attr('EJERANDEL_STEMMERET_PROCENT', [value('0.05', open('2019-01-01'))], 'decimal'),
            ),
          ]),
        ],
      },
      {
        // ANDEN_DELTAGER (a foreign foundation): VIRKSOMHED without a CVR number (DECISIONS §20).
        deltager: deltager(
          4000003,
          'ANDEN_DELTAGER',
          [{ navn: 'Stiftung Nordwald', periode: open('2016-01-01') }],
          4000003,
        ),
        organisationer: [
          org('REGISTER', 'EJERREGISTER', [
            member(attr('EJERANDEL_PROCENT', [value('0.25', open('2016-01-01'))], 'decimal')),
          ]),
        ],
      },
      {
        // Former board member: historical only.
        deltager: deltager(4000004, 'PERSON', [{ navn: 'Bent Hansen', periode: open(null) }]),
        organisationer: [
          org('LEDELSESORGAN', 'Bestyrelse', [
            member(attr('FUNKTION', [value('MEDLEM', closed('2010-01-01', '2016-06-30'))])),
          ]),
        ],
      },
      {
        // Auditor without member attributes: active through the organ's period, not counted as active owner/management.
        deltager: deltager(
          4000005,
          'VIRKSOMHED',
          [{ navn: 'Revisorhuset P/S', periode: open('2000-01-01') }],
          '33963556',
        ),
        organisationer: [org('REVISION', 'Revision', [member()], open('2014-01-01'))],
      },
      {
        // Founder: active founder role, excluded from antalAktive.
        deltager: deltager(4000006, 'PERSON', [{ navn: 'Carl Stifter', periode: open(null) }]),
        organisationer: [
          org('STIFTERE', 'Stiftere', [member(attr('FUNKTION', [value('STIFTER', open('1999-03-01'))]))]),
        ],
      },
      {
        // Beneficial owner only, exact value and a different voting share.
        deltager: deltager(4000007, 'PERSON', [{ navn: 'Dorte Holm', periode: open(null) }]),
        organisationer: [
          org('REGISTER', 'Reelle ejere', [
            member(
              attr('EJERANDEL_PROCENT', [value('0.688', open('2020-01-01'))], 'decimal'),
              attr('EJERANDEL_STEMMERET_PROCENT', [value('0.25', open('2020-01-01'))], 'decimal'),
            ),
          ]),
        ],
      },
    ],
  },
};

const UNIT_SOURCE = [
  'VrproduktionsEnhed.pNummer',
  'VrproduktionsEnhed.reklamebeskyttet',
  'VrproduktionsEnhed.produktionsEnhedMetadata.nyesteNavn',
  'VrproduktionsEnhed.produktionsEnhedMetadata.nyesteBeliggenhedsadresse',
  'VrproduktionsEnhed.produktionsEnhedMetadata.nyesteHovedbranche',
  'VrproduktionsEnhed.produktionsEnhedMetadata.sammensatStatus',
  'VrproduktionsEnhed.produktionsEnhedMetadata.nyesteAarsbeskaeftigelse',
  'VrproduktionsEnhed.produktionsEnhedMetadata.nyesteKvartalsbeskaeftigelse',
  'VrproduktionsEnhed.produktionsEnhedMetadata.nyesteMaanedsbeskaeftigelse',
  'VrproduktionsEnhed.produktionsEnhedMetadata.nyesteErstMaanedsbeskaeftigelse',
];

const UNITS = [
  {
    VrproduktionsEnhed: {
      pNummer: 1012345678,
      reklamebeskyttet: true,
      virksomhedsrelation: [{ cvrNummer: 12345678, periode: open('1999-03-01') }],
      produktionsEnhedMetadata: {
        nyesteNavn: { navn: 'Nordisk Træ A/S', periode: open('2001-01-01') },
        nyesteBeliggenhedsadresse: { ...ADDRESS_DOC, kommune: null },
        nyesteHovedbranche: { branchekode: '023000', branchetekst: 'Skovning' },
        nyesteCvrNummerRelation: 12345678,
        sammensatStatus: 'Aktiv',
        nyesteAarsbeskaeftigelse: {
          aar: 2023,
          antalAnsatte: null,
          antalAarsvaerk: null,
          intervalKodeAntalAnsatte: 'ANTAL_5_9',
          intervalKodeAntalAarsvaerk: 'ANTAL_2_4',
        },
      },
    },
  },
  {
    VrproduktionsEnhed: {
      pNummer: 1012345679,
      reklamebeskyttet: false,
      produktionsEnhedMetadata: {
        nyesteNavn: { navn: 'Nordisk Træ, savværk', periode: closed('2003-01-01', '2020-12-31') },
        nyesteBeliggenhedsadresse: null,
        nyesteHovedbranche: { branchekode: 161000, branchetekst: 'Savværker' },
        nyesteCvrNummerRelation: 12345678,
        sammensatStatus: 'Ophørt',
        // An object whose counts and codes are all null is no headcount at all.
        nyesteMaanedsbeskaeftigelse: {
          aar: 2020,
          maaned: 11,
          antalAnsatte: null,
          antalAarsvaerk: null,
          intervalKodeAntalAnsatte: null,
          intervalKodeAntalAarsvaerk: null,
        },
      },
    },
  },
];

const PERSON_SOURCE = [
  'Vrdeltagerperson.enhedsNummer',
  'Vrdeltagerperson.enhedstype',
  'Vrdeltagerperson.navne',
  'Vrdeltagerperson.virksomhedSummariskRelation',
];

const PERSONS = [
  {
    Vrdeltagerperson: {
      enhedsNummer: 4000001,
      enhedstype: 'PERSON',
      navne: [
        { navn: 'Anna Jensen', periode: closed('1999-03-01', '2010-05-01') },
        { navn: 'Anna Holm Jensen', periode: open('2010-05-01') },
      ],
      virksomhedSummariskRelation: [
        {
          virksomhed: {
            enhedstype: 'VIRKSOMHED',
            cvrNummer: 12345678,
            navne: [
              { navn: 'Nordisk Trælast A/S', periode: closed('1999-03-01', '2000-12-31') },
              { navn: 'Nordisk Træ A/S', periode: open('2001-01-01') },
            ],
          },
          organisationer: [
            org('LEDELSESORGAN', 'Direktion', [member(attr('FUNKTION', [value('adm. dir', open('2012-01-01'))]))]),
          ],
        },
        {
          virksomhed: {
            enhedstype: 'VIRKSOMHED',
            cvrNummer: 34567890,
            navne: [{ navn: 'Skovgaard ApS', periode: closed('2008-01-01', '2016-12-31') }],
          },
          organisationer: [
            org(
              'LEDELSESORGAN',
              'Bestyrelse',
              [member(attr('FUNKTION', [value('formand', closed('2009-01-01', '2014-12-31'))]))],
              closed('2008-01-01', '2016-12-31'),
            ),
          ],
        },
      ],
    },
  },
  {
    // A namesake with an extra middle name (matched by the AND query); no company relations.
    Vrdeltagerperson: {
      enhedsNummer: 4000009,
      enhedstype: 'PERSON',
      navne: [{ navn: 'Anna Marie Jensen', periode: open(null) }],
      virksomhedSummariskRelation: [],
    },
  },
];

// ---------------------------------------------------------------------------------------------

beforeAll(() => {
  nock.disableNetConnect();
});

afterEach(() => {
  const pending = nock.pendingMocks();
  nock.cleanAll();
  expect(pending, 'every intercepted request was made').toEqual([]);
});

afterAll(() => {
  nock.enableNetConnect();
  nock.restore();
});

describe('soeg_virksomhed', () => {
  it('sends a bounded AND match on the newest name with the Basic header and maps the companies', async () => {
    const seen = intercept('virksomhed', { body: es(37, [NORDISK, OPLOEST]) });
    const result = await call('soeg_virksomhed', { query: 'nordisk træ', size: 2 });
    expect(seen.body).toEqual({
      query: {
        match: { 'Vrvirksomhed.virksomhedMetadata.nyesteNavn.navn': { query: 'nordisk træ', operator: 'and' } },
      },
      size: 2,
      _source: COMPANY_SOURCE,
    });
    expect(result.total).toBe(37);
    expect(result.companies).toEqual([
      NORDISK_COMPANY,
      {
        cvrNummer: 23456789,
        navn: 'Nordisk Træ Holding ApS',
        status: 'OPLØST EFTER FUSION',
        virksomhedsform: null,
        branchekode: '642020',
        branchetekst: 'Ikke-finansielle holdingselskaber',
        adresse: null,
        stiftelsesDato: '2005-01-01',
        beskaeftigelse: null,
        reklamebeskyttet: false,
      },
    ]);
    expect(result.companies[0]).not.toHaveProperty('kapital');
  });

  it('reads `hits.total` as `{ value }` and returns an empty page', async () => {
    intercept('virksomhed', { body: es({ value: 0, relation: 'eq' }, []) });
    expect(await call('soeg_virksomhed', { query: 'findes ikke', size: 10 })).toEqual({ total: 0, companies: [] });
  });

  it('keeps a code-only yearly headcount when it is the newest and never invents counts', async () => {
    const doc = structuredClone(NORDISK) as unknown as {
      Vrvirksomhed: { virksomhedMetadata: Record<string, unknown> };
    };
    doc.Vrvirksomhed.virksomhedMetadata['nyesteAarsbeskaeftigelse'] = {
      aar: 2024,
      antalAnsatte: null,
      antalAarsvaerk: null,
      intervalKodeAntalAnsatte: 'ANTAL_20_29',
      intervalKodeAntalAarsvaerk: null,
    };
    doc.Vrvirksomhed.virksomhedMetadata['nyesteKvartalsbeskaeftigelse'] = null;
    doc.Vrvirksomhed.virksomhedMetadata['nyesteMaanedsbeskaeftigelse'] = {
      aar: 2024,
      maaned: 6,
      antalAnsatte: 31,
      antalAarsvaerk: 28.5,
      intervalKodeAntalAnsatte: 'ANTAL_20_49',
      intervalKodeAntalAarsvaerk: 'ANTAL_20_49',
    };
    doc.Vrvirksomhed.virksomhedMetadata['nyesteErstMaanedsbeskaeftigelse'] = {
      aar: 2024,
      maaned: 9,
      antalAnsatte: null,
      antalAarsvaerk: null,
      intervalKodeAntalAnsatte: 'ANTAL_20_49',
      intervalKodeAntalAarsvaerk: null,
    };
    intercept('virksomhed', { body: es(1, [doc]) });
    const [company] = (await call('soeg_virksomhed', { query: 'nordisk', size: 1 })).companies;
    // Year 2024 (through December) is newer than September 2024.
    expect(company!.beskaeftigelse).toEqual({
      aar: 2024,
      kvartal: null,
      maaned: null,
      antalAnsatte: null,
      antalAarsvaerk: null,
      intervalKodeAntalAnsatte: 'ANTAL_20_29',
      intervalKodeAntalAarsvaerk: null,
    });
  });
});

describe('hent_virksomhed', () => {
  it('looks the company up by a term on cvrNummer (size 1) and returns capital from the open period', async () => {
    const seen = intercept('virksomhed', { body: es(1, [NORDISK]) });
    const result = await call('hent_virksomhed', { cvrNummer: 12345678 });
    expect(seen.body).toEqual({
      query: { term: { 'Vrvirksomhed.cvrNummer': 12345678 } },
      size: 1,
      _source: [...COMPANY_SOURCE, 'Vrvirksomhed.attributter'],
    });
    expect(result).toEqual({ ...NORDISK_COMPANY, kapital: 1000000, kapitalValuta: 'DKK' });
  });

  it('gives null capital when no KAPITAL value is open', async () => {
    const doc = {
      Vrvirksomhed: {
        ...OPLOEST.Vrvirksomhed,
        attributter: [attr('KAPITAL', [value('125000.00', closed('2005-01-01', '2019-12-31'))], 'decimal')],
      },
    };
    intercept('virksomhed', { body: es(1, [doc]) });
    const result = await call('hent_virksomhed', { cvrNummer: 23456789 });
    expect(result).toMatchObject({ cvrNummer: 23456789, kapital: null, kapitalValuta: null, reklamebeskyttet: false });
  });

  it('answers `{ found: false, cvrNummer }` for an unknown number', async () => {
    intercept('virksomhed', { body: es(0, []) });
    expect(await call('hent_virksomhed', { cvrNummer: 99999999 })).toEqual({ found: false, cvrNummer: 99999999 });
  });
});

describe('find_produktionsenheder', () => {
  it('terms on the current parent, keeps `total` from `{ value }` and maps ceased units too', async () => {
    const seen = intercept('produktionsenhed', { body: es({ value: 3, relation: 'eq' }, UNITS) });
    const result = await call('find_produktionsenheder', { cvrNummer: 12345678, size: 2 });
    expect(seen.body).toEqual({
      query: { term: { 'VrproduktionsEnhed.produktionsEnhedMetadata.nyesteCvrNummerRelation': 12345678 } },
      size: 2,
      _source: UNIT_SOURCE,
    });
    expect(result).toEqual({
      total: 3,
      units: [
        {
          pNummer: 1012345678,
          navn: 'Nordisk Træ A/S',
          status: 'Aktiv',
          branchekode: '023000',
          branchetekst: 'Skovning',
          adresse: { ...NORDISK_COMPANY.adresse, kommune: null },
          beskaeftigelse: {
            aar: 2023,
            kvartal: null,
            maaned: null,
            antalAnsatte: null,
            antalAarsvaerk: null,
            intervalKodeAntalAnsatte: 'ANTAL_5_9',
            intervalKodeAntalAarsvaerk: 'ANTAL_2_4',
          },
          reklamebeskyttet: true,
        },
        {
          pNummer: 1012345679,
          navn: 'Nordisk Træ, savværk',
          status: 'Ophørt',
          branchekode: '161000',
          branchetekst: 'Savværker',
          adresse: null,
          beskaeftigelse: null,
          reklamebeskyttet: false,
        },
      ],
    });
  });

  it('sends the default size of 50 when the runtime filled it in', async () => {
    const seen = intercept('produktionsenhed', { body: es(0, []) });
    expect(await call('find_produktionsenheder', { cvrNummer: 87654321, size: 50 })).toEqual({ total: 0, units: [] });
    expect(seen.body).toMatchObject({ size: 50 });
  });
});

describe('find_ejere', () => {
  it('maps every participant kind, roles with periods, shares and the two counts', async () => {
    const seen = intercept('virksomhed', { body: es(1, [OWNERS_DOC]) });
    const result = await call('find_ejere', { cvrNummer: 12345678 });
    expect(seen.body).toEqual({
      query: { term: { 'Vrvirksomhed.cvrNummer': 12345678 } },
      size: 1,
      _source: [
        'Vrvirksomhed.cvrNummer',
        'Vrvirksomhed.virksomhedMetadata.nyesteNavn',
        'Vrvirksomhed.deltagerRelation',
      ],
    });
    if ('found' in result) throw new Error('expected owners');
    expect(result.cvrNummer).toBe(12345678);
    expect(result.navn).toBe('Nordisk Træ A/S');
    expect(result.antal).toBe(7); // all relations: historical member, auditor and founder included
    expect(result.antalAktive).toBe(4); // Anna, Moder Holding, Stiftung, Dorte
    const [anna, moder, stiftung, bent, revisor, carl, dorte] = result.ejere;

    expect(anna).toEqual({
      navn: 'Anna Holm Jensen',
      type: 'PERSON',
      enhedsNummer: 4000001,
      cvrNummer: null,
      aktiv: true,
      roller: [
        {
          organisation: 'Direktion',
          hovedtype: 'LEDELSESORGAN',
          funktion: 'adm. dir',
          aktiv: true,
          periode: { gyldigFra: '2012-01-01', gyldigTil: null },
        },
        {
          organisation: 'Bestyrelse',
          hovedtype: 'LEDELSESORGAN',
          funktion: 'MEDLEM',
          aktiv: false,
          periode: { gyldigFra: '2010-01-01', gyldigTil: '2015-04-30' },
        },
        {
          organisation: 'Bestyrelse',
          hovedtype: 'LEDELSESORGAN',
          funktion: 'FORMAND',
          aktiv: true,
          periode: { gyldigFra: '2015-05-01', gyldigTil: null },
        },
        {
          organisation: 'EJERREGISTER',
          hovedtype: 'REGISTER',
          funktion: null,
          aktiv: true,
          periode: { gyldigFra: '2010-01-01', gyldigTil: null },
        },
        {
          organisation: 'Reelle ejere',
          hovedtype: 'REGISTER',
          funktion: null,
          aktiv: true,
          periode: { gyldigFra: '2018-04-01', gyldigTil: null },
        },
      ],
      funktioner: ['adm. dir', 'FORMAND'],
      // Both registers hold a value: the legal owners' register wins, raw value kept.
      ejerandel: { procent: 66.67, raavaerdi: '0.6667', kilde: 'EJERREGISTER' },
      stemmeret: { procent: 66.67, raavaerdi: '0.6667', kilde: 'EJERREGISTER' },
    });

    expect(moder).toMatchObject({
      navn: 'Moder Holding ApS',
      type: 'VIRKSOMHED',
      enhedsNummer: 4000002,
      cvrNummer: 87654321,
      aktiv: true,
      ejerandel: { procent: 5, raavaerdi: '0.05', kilde: 'EJERREGISTER' },
    });
    expect(moder).not.toHaveProperty('enhedstype');

    expect(stiftung).toMatchObject({
      navn: 'Stiftung Nordwald',
      type: 'VIRKSOMHED',
      enhedstype: 'ANDEN_DELTAGER',
      enhedsNummer: 4000003,
      cvrNummer: null,
      ejerandel: { procent: 25, raavaerdi: '0.25', kilde: 'EJERREGISTER' },
      stemmeret: null,
    });

    expect(bent).toEqual({
      navn: 'Bent Hansen',
      type: 'PERSON',
      enhedsNummer: 4000004,
      cvrNummer: null,
      aktiv: false,
      roller: [
        {
          organisation: 'Bestyrelse',
          hovedtype: 'LEDELSESORGAN',
          funktion: 'MEDLEM',
          aktiv: false,
          periode: { gyldigFra: '2010-01-01', gyldigTil: '2016-06-30' },
        },
      ],
      funktioner: [],
      ejerandel: null,
      stemmeret: null,
    });

    // CVR from the string business key; the auditor is active but not counted in antalAktive.
    expect(revisor).toMatchObject({
      type: 'VIRKSOMHED',
      enhedsNummer: 4000005,
      cvrNummer: 33963556,
      aktiv: true,
      roller: [
        {
          organisation: 'Revision',
          hovedtype: 'REVISION',
          funktion: null,
          aktiv: true,
          periode: { gyldigFra: '2014-01-01', gyldigTil: null },
        },
      ],
    });
    expect(carl).toMatchObject({
      aktiv: true,
      funktioner: ['STIFTER'],
      roller: [{ organisation: 'Stiftere', hovedtype: 'STIFTERE', funktion: 'STIFTER', aktiv: true }],
    });
    expect(dorte).toMatchObject({
      type: 'PERSON',
      ejerandel: { procent: 68.8, raavaerdi: '0.688', kilde: 'Reelle ejere' },
      stemmeret: { procent: 25, raavaerdi: '0.25', kilde: 'Reelle ejere' },
    });

    // No participant ever gets its enhedsNummer as cvrNummer.
    for (const p of result.ejere) expect(p.cvrNummer === null || p.cvrNummer !== p.enhedsNummer).toBe(true);
  });

  it('counts open fully liable partners as active and former ones only in antal', async () => {
    const doc = {
      Vrvirksomhed: {
        cvrNummer: 45678901,
        virksomhedMetadata: { nyesteNavn: { navn: 'Hansen & Holm I/S', periode: open('2011-01-01') } },
        deltagerRelation: [
          {
            deltager: deltager(4000011, 'PERSON', [{ navn: 'Ida Hansen', periode: open(null) }]),
            organisationer: [
              org('FULDT_ANSVARLIG_DELTAGERE', 'Interessenter', [
                member(attr('FUNKTION', [value('INTERESSENT', open('2011-01-01'))])),
              ]),
            ],
          },
          {
            deltager: deltager(4000012, 'PERSON', [{ navn: 'Jens Holm', periode: open(null) }]),
            organisationer: [
              org('FULDT_ANSVARLIG_DELTAGERE', 'Interessenter', [
                member(attr('FUNKTION', [value('INTERESSENT', closed('2011-01-01', '2013-12-31'))])),
              ]),
            ],
          },
        ],
      },
    };
    intercept('virksomhed', { body: es(1, [doc]) });
    const result = await call('find_ejere', { cvrNummer: 45678901 });
    expect(result).toMatchObject({ cvrNummer: 45678901, navn: 'Hansen & Holm I/S', antal: 2, antalAktive: 1 });
  });

  it('answers `{ found: false, cvrNummer }` for an unknown number', async () => {
    intercept('virksomhed', { body: es(0, []) });
    expect(await call('find_ejere', { cvrNummer: 11223344 })).toEqual({ found: false, cvrNummer: 11223344 });
  });
});

describe('find_virksomheder_for_person', () => {
  it('sends the bool.must query of register.md and returns one person per hit with the current name', async () => {
    const seen = intercept('deltager', { body: es(2, PERSONS) });
    const result = await call('find_virksomheder_for_person', { navn: 'Anna Jensen', size: 5 });
    expect(seen.body).toEqual({
      query: {
        bool: {
          must: [
            { match: { 'Vrdeltagerperson.navne.navn': { query: 'Anna Jensen', operator: 'and' } } },
            { match: { 'Vrdeltagerperson.enhedstype': 'PERSON' } },
          ],
        },
      },
      size: 5,
      _source: PERSON_SOURCE,
    });
    expect(result).toEqual({
      total: 2,
      personer: [
        {
          enhedsNummer: 4000001,
          navn: 'Anna Holm Jensen',
          virksomheder: [
            {
              cvrNummer: 12345678,
              navn: 'Nordisk Træ A/S',
              aktiv: true,
              roller: [
                {
                  organisation: 'Direktion',
                  hovedtype: 'LEDELSESORGAN',
                  funktion: 'adm. dir',
                  aktiv: true,
                  periode: { gyldigFra: '2012-01-01', gyldigTil: null },
                },
              ],
            },
            {
              cvrNummer: 34567890,
              navn: 'Skovgaard ApS',
              aktiv: false,
              roller: [
                {
                  organisation: 'Bestyrelse',
                  hovedtype: 'LEDELSESORGAN',
                  funktion: 'formand',
                  aktiv: false,
                  periode: { gyldigFra: '2009-01-01', gyldigTil: '2014-12-31' },
                },
              ],
            },
          ],
        },
        { enhedsNummer: 4000009, navn: 'Anna Marie Jensen', virksomheder: [] },
      ],
    });
  });

  it('falls back to `_id` when the document lacks enhedsNummer', async () => {
    intercept('deltager', {
      body: es(
        1,
        [{ Vrdeltagerperson: { enhedstype: 'PERSON', navne: [{ navn: 'Ole Lund', periode: open(null) }] } }],
        ['4000042'],
      ),
    });
    expect(await call('find_virksomheder_for_person', { navn: 'Ole Lund', size: 10 })).toEqual({
      total: 1,
      personer: [{ enhedsNummer: 4000042, navn: 'Ole Lund', virksomheder: [] }],
    });
  });
});

describe('share normalisation', () => {
  it.each([
    ['0.6667', 66.67],
    ['0.3333', 33.33],
    ['0.05', 5],
    ['0.07', 7], // 0.07 × 100 is 7.000000000000001 in floating point
    ['1.0', 100],
    ['1', 100],
    ['0.688', 68.8],
    ['0.12345', 12.35],
    ['0', 0],
    ['0,25', 25],
    ['50', 50], // already a percentage
    ['5.0E-2', 5],
    ['150', null],
    ['-0.1', null],
    ['', null],
    ['n/a', null],
  ])('%s → %s', (raw, expected) => {
    expect(sharePercent(raw)).toBe(expected);
  });
});

describe('errors', () => {
  async function failure(
    tool: RegisterToolName,
    reply: Parameters<typeof intercept>[1],
    credential: Credential = SECRET_CREDENTIAL,
  ): Promise<{ error: unknown; text: string; logs: string }> {
    intercept(
      tool === 'find_produktionsenheder'
        ? 'produktionsenhed'
        : tool === 'find_virksomheder_for_person'
          ? 'deltager'
          : 'virksomhed',
      reply,
      `Basic ${SECRET_HEADER}`,
    );
    const h = harness(tool, credential);
    const args = { query: 'x', navn: 'x', cvrNummer: 12345678, size: 10 };
    const error = await (registerHandlers[tool] as (a: unknown, c: TestToolContext) => Promise<unknown>)(
      args,
      h.ctx,
    ).then(
      () => undefined,
      (e: unknown) => e,
    );
    const text =
      error instanceof ToolError
        ? formatText((registerDescriptor.errors as Record<string, { text: string }>)[error.code]!.text, error.params)
        : String(error);
    const logs = h.logs.join('');
    for (const haystack of [
      text,
      String(error),
      JSON.stringify(error),
      JSON.stringify((error as { body?: unknown }).body ?? null),
      logs,
    ]) {
      expect(haystack).not.toContain(SECRET);
      expect(haystack).not.toContain(SECRET_HEADER);
    }
    return { error, text, logs };
  }

  it.each([401, 403])('HTTP %i → register_auth', async (status) => {
    const { error, text } = await failure('soeg_virksomhed', {
      status,
      body: 'Unauthorized',
      headers: { 'content-type': 'text/plain' },
    });
    expect(error).toBeInstanceOf(ToolError);
    expect(error).toMatchObject({ code: 'register_auth', params: {} });
    expect(text).toMatch(/^RegisterAuthError: /);
  });

  it('HTTP 500 → register_api with the status', async () => {
    const { error, text } = await failure('hent_virksomhed', {
      status: 500,
      body: '<html><body>Internal Server Error</body></html>',
      headers: { 'content-type': 'text/html' },
    });
    expect(error).toMatchObject({ code: 'register_api', params: { status: 500 } });
    expect(text).toBe('RegisterApiError: the company register answered HTTP 500.');
  });

  it('an HTML page with 200 → register_api 200', async () => {
    const { error, text } = await failure('find_ejere', {
      status: 200,
      body: '<!DOCTYPE html><html><title>Vedligeholdelse</title></html>',
      headers: { 'content-type': 'text/html' },
    });
    expect(error).toMatchObject({ code: 'register_api', params: { status: 200 } });
    expect(text).toBe('RegisterApiError: the company register answered HTTP 200.');
  });

  it('a 200 JSON body that is not a search response → register_api 200', async () => {
    const { error } = await failure('find_produktionsenheder', { status: 200, body: { acknowledged: true } });
    expect(error).toMatchObject({ code: 'register_api', params: { status: 200 } });
  });

  it('an ES 400 error → register_api 400, the ES error type logged without secrets', async () => {
    const esError = {
      error: {
        root_cause: [{ type: 'parsing_exception', reason: '[match] query malformed' }],
        type: 'parsing_exception',
        reason: '[match] query malformed',
        line: 1,
        col: 30,
      },
      status: 400,
    };
    const { error, text, logs } = await failure('find_virksomheder_for_person', { status: 400, body: esError });
    expect(error).toMatchObject({ code: 'register_api', params: { status: 400 } });
    expect(text).toBe('RegisterApiError: the company register answered HTTP 400.');
    expect(logs).toContain('parsing_exception');
  });

  it('HTTP 404 → register_api 404', async () => {
    const { error } = await failure('soeg_virksomhed', {
      status: 404,
      body: { error: 'index_not_found_exception', status: 404 },
    });
    expect(error).toMatchObject({ code: 'register_api', params: { status: 404 } });
  });

  /** An upstream client that fails the way runtime/upstream/client.ts classifies a fault. */
  function failingUpstream(tool: RegisterToolName, error: UpstreamError): Harness {
    const upstream: UpstreamClient = {
      baseUrl: BASE,
      request: async () => {
        throw error;
      },
    };
    return harness(tool, SECRET_CREDENTIAL, upstream);
  }

  it.each(['network', 'timeout'] as const)('a %s fault is rethrown for the generic text', async (kind) => {
    const fault = new UpstreamError(
      kind,
      kind === 'timeout' ? 'upstream did not answer within 20000 ms' : 'upstream unreachable: ECONNRESET',
    );
    const h = failingUpstream('find_ejere', fault);
    const error = await registerHandlers.find_ejere({ cvrNummer: 12345678 }, h.ctx).catch((e: unknown) => e);
    expect(error).toBe(fault);
    expect(String(error)).not.toContain(SECRET);
  });

  it.each<[string, UpstreamError, number]>([
    [
      'a body over the size cap (no status)',
      new UpstreamError('too_large', 'upstream response passed the 8388608-byte cap'),
      502,
    ],
    [
      'a refused off-origin request (no status)',
      new UpstreamError('client', "refusing a request outside the connector's origin"),
      502,
    ],
    [
      'a 429 (the register has no retry policy)',
      new UpstreamError('throttled', 'upstream answered HTTP 429', { status: 429 }),
      429,
    ],
    ['a redirect (never followed)', new UpstreamError('client', 'upstream answered HTTP 302', { status: 302 }), 302],
  ])('%s → register_api %i', async (_label, fault, status) => {
    const h = failingUpstream('soeg_virksomhed', fault);
    const error = await registerHandlers.soeg_virksomhed({ query: 'x', size: 10 }, h.ctx).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ToolError);
    expect(error).toMatchObject({ code: 'register_api', params: { status } });
  });

  it('results never carry the credential', async () => {
    intercept('virksomhed', { body: es(1, [NORDISK]) }, `Basic ${SECRET_HEADER}`);
    const result = await registerHandlers.hent_virksomhed(
      { cvrNummer: 12345678 },
      harness('hent_virksomhed', SECRET_CREDENTIAL).ctx,
    );
    expect(JSON.stringify(result)).not.toContain(SECRET);
    expect(JSON.stringify(result)).not.toContain(SECRET_HEADER);
  });
});

describe('credential', () => {
  it.each<[string, Credential]>([
    ['no username', { kind: 'managed_basic', password: SECRET }],
    ['no password', { kind: 'managed_basic', username: 'cvr-svc' }],
    ['empty username', { kind: 'managed_basic', username: '', password: SECRET }],
    ['empty password', { kind: 'managed_basic', username: 'cvr-svc', password: '' }],
    ["':' in the username", { kind: 'managed_basic', username: 'cvr:svc', password: SECRET }],
    ['another credential kind', { kind: 'api_key', apiKey: SECRET }],
  ])('%s → register_config, nothing sent upstream', async (_label, credential) => {
    for (const tool of [
      'soeg_virksomhed',
      'hent_virksomhed',
      'find_produktionsenheder',
      'find_ejere',
      'find_virksomheder_for_person',
    ] as const) {
      const error = await (registerHandlers[tool] as (a: unknown, c: TestToolContext) => Promise<unknown>)(
        { query: 'x', navn: 'x', cvrNummer: 12345678, size: 10 },
        harness(tool, credential).ctx,
      ).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(ToolError);
      expect(error).toMatchObject({ code: 'register_config', params: {} });
      expect(JSON.stringify(error) + String(error)).not.toContain(SECRET);
    }
  });

  it('no credential at all → the platform CredentialMissingError', async () => {
    const error = await registerHandlers
      .soeg_virksomhed({ query: 'x', size: 10 }, harness('soeg_virksomhed', null).ctx)
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'credential_missing', params: { connector_id: 'register' } });
  });

  it('a password with ":" and non-ASCII letters is encoded as UTF-8 Basic', async () => {
    const credential: Credential = { kind: 'managed_basic', username: 'cvr-svc', password: 'æøå:Å1' };
    intercept('virksomhed', { body: es(0, []) }, `Basic ${Buffer.from('cvr-svc:æøå:Å1', 'utf8').toString('base64')}`);
    expect(await call('soeg_virksomhed', { query: 'x', size: 1 }, credential)).toEqual({ total: 0, companies: [] });
  });

  it('a size outside 1 to 50 never reaches the register', async () => {
    await expect(
      registerHandlers.soeg_virksomhed({ query: 'x', size: 500 }, harness('soeg_virksomhed').ctx),
    ).rejects.toThrow(/size/);
    await expect(
      registerHandlers.find_produktionsenheder(
        { cvrNummer: 12345678, size: 0 },
        harness('find_produktionsenheder').ctx,
      ),
    ).rejects.toThrow(/size/);
  });
});
