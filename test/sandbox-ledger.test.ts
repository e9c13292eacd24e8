// The ledger (Uniconta WebAPI) sandbox, tested through its own HTTP interface: login variants, the
// JWT, every Query/Get filter, sort and paging form, the …ClientUser custom fields, company
// scoping, the read-only write endpoints, the switches, and the invariants of the demo data that
// the connector's tests and the demo rely on.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  LEDGER_DEMO_AS_OF,
  LEDGER_DEMO_COMPANY_ID,
  LEDGER_DEMO_INTERACTIVE_PASSWORD,
  LEDGER_DEMO_INTERACTIVE_USER,
  LEDGER_DEMO_PASSWORD,
  LEDGER_DEMO_SECOND_COMPANY_ID,
  LEDGER_DEMO_USER,
  LEDGER_ENTITIES,
  LEDGER_LOGIN_ERRORS,
  LEDGER_MOVEMENT_TYPES,
  LEDGER_NON_NUMERIC_ACCOUNT,
  LEDGER_PRODUCT_GROUPS,
  LEDGER_UNKNOWN_COMPANY_ID,
  LEDGER_USER_FIELDS,
} from '../sandbox/ledger/data.ts';
import { LEDGER_UNKNOWN_PROPERTY_MODES, startLedgerSandbox } from '../sandbox/ledger/server.ts';
import type { LedgerSandbox, LedgerUnknownProperties } from '../sandbox/ledger/server.ts';

interface Reply {
  status: number;
  contentType: string;
  text: string;
  json: () => any;
}

interface CallOptions {
  token?: string | null;
  method?: string;
  contentType?: string | null;
  raw?: string;
  signal?: AbortSignal;
}

let sandbox: LedgerSandbox;
let demoToken: string;
let secondToken: string;

async function call(path: string, body?: unknown, options: CallOptions = {}): Promise<Reply> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (options.contentType !== null) headers['content-type'] = options.contentType ?? 'application/json';
  if (options.token !== undefined && options.token !== null) headers.authorization = `Bearer ${options.token}`;
  const res = await fetch(`${sandbox.url}${path}`, {
    method: options.method ?? 'POST',
    headers,
    body: options.raw ?? (body === undefined ? undefined : JSON.stringify(body)),
    ...(options.signal === undefined ? {} : { signal: options.signal }),
  });
  const text = await res.text();
  return { status: res.status, contentType: res.headers.get('content-type') ?? '', text, json: () => JSON.parse(text) };
}

function login(username: string, password: string): Promise<Reply> {
  return call('/login', { Username: username, Password: password });
}

async function tokenFor(companyId: number): Promise<string> {
  const r = await login(`00${companyId}/${LEDGER_DEMO_USER}`, LEDGER_DEMO_PASSWORD);
  expect(r.status).toBe(200);
  return r.json().token as string;
}

function query(entity: string, body: unknown = [], token: string = demoToken): Promise<Reply> {
  return call(`/Query/Get/${entity}`, body, { token });
}

async function rows(entity: string, body: unknown = [], token: string = demoToken): Promise<any[]> {
  const r = await query(entity, body, token);
  expect(r.status, r.text.slice(0, 200)).toBe(200);
  return r.json();
}

function jwtPayload(token: string): any {
  return JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString('utf8'));
}

const ISO_DAY = /^\d{4}-\d{2}-\d{2}T00:00:00$/;

/** The sandbox of the enclosing `describe.each` block, in one of its two unknown-property behaviours. */
function useSandbox(mode: LedgerUnknownProperties): void {
  beforeAll(async () => {
    sandbox = await startLedgerSandbox({ port: 0, unknownProperties: mode });
    demoToken = await tokenFor(LEDGER_DEMO_COMPANY_ID);
    secondToken = await tokenFor(LEDGER_DEMO_SECOND_COMPANY_ID);
  });
  afterAll(async () => {
    await sandbox.close();
  });
  afterEach(() => {
    sandbox.resetSwitches();
  });
}

/** A Query/Get naming `property`, which `entity` does not have: ignored, or 400 naming it when rejected. */
async function expectUnknown(
  mode: LedgerUnknownProperties,
  entity: string,
  body: unknown[],
  property: string,
  ignored: () => Promise<void> | void,
): Promise<void> {
  const r = await query(entity, body);
  if (mode === 'ignore') {
    expect(r.status, r.text.slice(0, 200)).toBe(200);
    await ignored();
    return;
  }
  expect(r.status).toBe(400);
  expect(r.contentType).toMatch(/^text\/plain/);
  expect(r.text).toBe(`Unknown property: ${property} is not a property of ${entity}`);
}

describe.each(LEDGER_UNKNOWN_PROPERTY_MODES)('ledger sandbox, unknown properties: %s', (mode) => {
  useSandbox(mode);

  describe('ledger sandbox: surface', () => {
    it('listens on 127.0.0.1 and exposes the base URL and the demo credentials', () => {
      expect(sandbox.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(sandbox.url).toBe(`http://127.0.0.1:${sandbox.port}`);
      expect(sandbox.credentials).toEqual({
        username: LEDGER_DEMO_USER,
        password: LEDGER_DEMO_PASSWORD,
        companyId: String(LEDGER_DEMO_COMPANY_ID),
        loginUsername: `00${LEDGER_DEMO_COMPANY_ID}/${LEDGER_DEMO_USER}`,
      });
    });

    it('answers unknown paths 404 and non-POST reads 405', async () => {
      expect((await call('/Query/Read/DebtorClient', [], { token: demoToken })).status).toBe(404);
      expect(
        (await call('/Query/Get/DebtorClient', undefined, { method: 'GET', token: demoToken, contentType: null }))
          .status,
      ).toBe(405);
    });

    it('matches paths case-insensitively', async () => {
      expect((await call('/query/get/DebtorClient', [], { token: demoToken })).status).toBe(200);
      expect(
        (await call('/Login', { Username: sandbox.credentials.loginUsername, Password: LEDGER_DEMO_PASSWORD })).status,
      ).toBe(200);
    });
  });

  describe('ledger sandbox: login', () => {
    it('returns token, refreshToken and refreshTokenExpiry (camelCase) for the server-login user', async () => {
      const r = await login(`00${LEDGER_DEMO_COMPANY_ID}/${LEDGER_DEMO_USER}`, LEDGER_DEMO_PASSWORD);
      expect(r.status).toBe(200);
      expect(r.contentType).toMatch(/^application\/json/);
      const body = r.json();
      expect(Object.keys(body).sort()).toEqual(['refreshToken', 'refreshTokenExpiry', 'token']);
      expect(body.token.split('.')).toHaveLength(3);
      expect(body.refreshToken).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
      const days = (Date.parse(body.refreshTokenExpiry) - Date.now()) / 86_400_000;
      expect(days).toBeGreaterThan(6.9);
      expect(days).toBeLessThan(7.1);
    });

    it('signs an HS256 JWT carrying the user, the company id and a one-hour expiry', () => {
      const header = JSON.parse(Buffer.from(demoToken.split('.')[0]!, 'base64url').toString('utf8'));
      expect(header).toEqual({ alg: 'HS256', typ: 'JWT' });
      const claims = jwtPayload(demoToken);
      expect(claims).toMatchObject({ sub: LEDGER_DEMO_USER, cid: LEDGER_DEMO_COMPANY_ID });
      expect(claims.exp - claims.iat).toBe(3600);
      expect(jwtPayload(secondToken).cid).toBe(LEDGER_DEMO_SECOND_COMPANY_ID);
    });

    it('reads the member names and the user name case-insensitively', async () => {
      const r = await call('/login', {
        username: `00${LEDGER_DEMO_COMPANY_ID}/${LEDGER_DEMO_USER.toUpperCase()}`,
        password: LEDGER_DEMO_PASSWORD,
      });
      expect(r.status).toBe(200);
      expect(typeof r.json().token).toBe('string');
    });

    it.each([
      ['no 00<companyId>/ prefix', LEDGER_DEMO_USER, LEDGER_DEMO_PASSWORD, LEDGER_LOGIN_ERRORS.noCompanyId],
      [
        'an unknown company',
        `00${LEDGER_UNKNOWN_COMPANY_ID}/${LEDGER_DEMO_USER}`,
        LEDGER_DEMO_PASSWORD,
        LEDGER_LOGIN_ERRORS.noCompanyId,
      ],
      [
        'a wrong password',
        `00${LEDGER_DEMO_COMPANY_ID}/${LEDGER_DEMO_USER}`,
        'wrong',
        LEDGER_LOGIN_ERRORS.invalidCredentials,
      ],
      [
        'an unknown user',
        `00${LEDGER_DEMO_COMPANY_ID}/nobody`,
        LEDGER_DEMO_PASSWORD,
        LEDGER_LOGIN_ERRORS.invalidCredentials,
      ],
      [
        'a user that is not a server-login user',
        `00${LEDGER_DEMO_COMPANY_ID}/${LEDGER_DEMO_INTERACTIVE_USER}`,
        LEDGER_DEMO_INTERACTIVE_PASSWORD,
        LEDGER_LOGIN_ERRORS.notServerLogin,
      ],
    ])('refuses %s with a bare JSON string (status 200 by default)', async (_label, username, password, expected) => {
      const r = await login(username, password);
      expect(r.status).toBe(200);
      expect(r.contentType).toMatch(/^application\/json/);
      expect(r.json()).toBe(expected);
    });

    it('uses three distinct failure strings', () => {
      expect(new Set(Object.values(LEDGER_LOGIN_ERRORS)).size).toBe(3);
      expect(LEDGER_LOGIN_ERRORS.noCompanyId).toBe('NoCompanyId');
      expect(LEDGER_LOGIN_ERRORS.invalidCredentials).toBe('Invalid credentials');
    });

    it.each([400, 401] as const)('switches the failure status to %i; the body stays a JSON string', async (status) => {
      sandbox.setSwitches({ loginFailureStatus: status });
      const bad = await login(`00${LEDGER_DEMO_COMPANY_ID}/${LEDGER_DEMO_USER}`, 'wrong');
      expect(bad.status).toBe(status);
      expect(bad.json()).toBe(LEDGER_LOGIN_ERRORS.invalidCredentials);
      expect((await login(`00${LEDGER_UNKNOWN_COMPANY_ID}/${LEDGER_DEMO_USER}`, LEDGER_DEMO_PASSWORD)).json()).toBe(
        LEDGER_LOGIN_ERRORS.noCompanyId,
      );
      expect((await login(`00${LEDGER_DEMO_COMPANY_ID}/${LEDGER_DEMO_USER}`, LEDGER_DEMO_PASSWORD)).status).toBe(200);
    });

    it('counts logins and failed logins', async () => {
      sandbox.resetStats();
      await login(`00${LEDGER_DEMO_COMPANY_ID}/${LEDGER_DEMO_USER}`, LEDGER_DEMO_PASSWORD);
      await login(`00${LEDGER_DEMO_COMPANY_ID}/${LEDGER_DEMO_USER}`, 'wrong');
      expect(sandbox.stats).toMatchObject({ requests: 2, logins: 1, failedLogins: 1 });
      expect(sandbox.stats.lastRequest?.path).toBe('/login');
    });

    it('supports /refresh (refresh token as a JSON string) and /Logout', async () => {
      const first = (await login(`00${LEDGER_DEMO_COMPANY_ID}/${LEDGER_DEMO_USER}`, LEDGER_DEMO_PASSWORD)).json();
      const refreshed = await call('/refresh', first.refreshToken);
      expect(refreshed.status).toBe(200);
      expect(jwtPayload(refreshed.json().token).cid).toBe(LEDGER_DEMO_COMPANY_ID);
      expect((await call('/refresh', first.refreshToken)).status).toBe(401);
      const out = await call(`/Logout?refreshToken=${refreshed.json().refreshToken}`, undefined, { contentType: null });
      expect(out.status).toBe(200);
      expect((await call('/refresh', refreshed.json().refreshToken)).status).toBe(401);
    });
  });

  describe('ledger sandbox: JWT checks', () => {
    it('answers 401 with a short text body for a missing, garbled or foreign token', async () => {
      const missing = await call('/Query/Get/DebtorClient', [], { token: null });
      expect(missing.status).toBe(401);
      expect(missing.contentType).toMatch(/^text\/plain/);
      expect(missing.text.length).toBeLessThan(100);
      expect((await query('DebtorClient', [], 'garbage')).status).toBe(401);
      expect((await query('DebtorClient', [], `${demoToken}x`)).status).toBe(401);
      const other = await startLedgerSandbox({ port: 0 });
      try {
        const foreign = (await fetch(`${other.url}/login`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ Username: other.credentials.loginUsername, Password: other.credentials.password }),
        }).then((r) => r.json())) as { token: string };
        expect((await query('DebtorClient', [], foreign.token)).status).toBe(401);
      } finally {
        await other.close();
      }
    });

    it('refuses a token whose claims were changed (signature no longer matches)', async () => {
      const [head, , sig] = demoToken.split('.');
      const claims = { ...jwtPayload(demoToken), cid: LEDGER_DEMO_SECOND_COMPANY_ID };
      const forged = `${head}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.${sig}`;
      expect((await query('DebtorClient', [], forged)).status).toBe(401);
    });

    it('refuses an expired token (tokenLifetimeSeconds 0 mints already-expired tokens)', async () => {
      sandbox.setSwitches({ tokenLifetimeSeconds: 0 });
      const expired = (await login(`00${LEDGER_DEMO_COMPANY_ID}/${LEDGER_DEMO_USER}`, LEDGER_DEMO_PASSWORD)).json()
        .token as string;
      const r = await query('DebtorClient', [], expired);
      expect(r.status).toBe(401);
      expect(r.text).toMatch(/expired/);
      sandbox.resetSwitches();
      expect((await query('DebtorClient', [], await tokenFor(LEDGER_DEMO_COMPANY_ID))).status).toBe(200);
    });

    it('takes the token lifetime from the start option', async () => {
      const local = await startLedgerSandbox({ port: 0, tokenLifetimeSeconds: 90 });
      try {
        const r = await fetch(`${local.url}/login`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ Username: local.credentials.loginUsername, Password: local.credentials.password }),
        });
        const claims = jwtPayload(((await r.json()) as { token: string }).token);
        expect(claims.exp - claims.iat).toBe(90);
        expect(local.switches.tokenLifetimeSeconds).toBe(90);
      } finally {
        await local.close();
      }
    });
  });

  describe('ledger sandbox: Query/Get body and filters', () => {
    it('returns every row for an empty array and for [{}]', async () => {
      expect(await rows('DebtorClient', [])).toHaveLength(40);
      expect(await rows('DebtorClient', [{}])).toHaveLength(40);
    });

    it('answers 400 text for a body that is not a JSON array, invalid JSON or a non-object entry', async () => {
      for (const body of [{}, 'x', null, [1]]) {
        const r = await query('DebtorClient', body);
        expect(r.status).toBe(400);
        expect(r.contentType).toMatch(/^text\/plain/);
      }
      expect((await call('/Query/Get/DebtorClient', undefined, { token: demoToken, raw: '[{' })).status).toBe(400);
      expect((await call('/Query/Get/DebtorClient', undefined, { token: demoToken, raw: '' })).status).toBe(400);
      expect((await call('/Query/Get/DebtorClient', [], { token: demoToken, contentType: 'text/plain' })).status).toBe(
        415,
      );
    });

    it('answers 400 text for an unknown entity; entity names are case-insensitive', async () => {
      const r = await query('NoSuchEntityClient', []);
      expect(r.status).toBe(400);
      expect(r.contentType).toMatch(/^text\/plain/);
      expect(r.text).toContain('NoSuchEntityClient');
      expect(await rows('debtorclient', [])).toHaveLength(40);
    });

    it('exact: strings case-insensitively, numbers numerically', async () => {
      const counter = await rows('DebtorClient', [{ PropertyName: 'Name', FilterValue: 'counter SALES' }]);
      expect(counter.map((d) => d.Account)).toEqual(['10000']);
      const inv = await rows('DebtorInvoiceClient', [{ PropertyName: 'InvoiceNumber', FilterValue: '100010' }]);
      expect(inv).toHaveLength(1);
      expect(inv[0].InvoiceNumber).toBe(100010);
      expect(await rows('DebtorClient', [{ PropertyName: 'Name', FilterValue: 'counter' }])).toEqual([]);
    });

    it('wildcards: * anywhere, case-insensitive', async () => {
      const smed = await rows('DebtorClient', [{ PropertyName: 'Name', FilterValue: '*smed*' }]);
      expect(smed.length).toBeGreaterThanOrEqual(3);
      for (const d of smed) expect(d.Name.toLowerCase()).toContain('smed');
      const prefix = await rows('InvItemClient', [{ PropertyName: 'Item', FilterValue: 'eb-*' }]);
      expect(prefix).toHaveLength(18);
      const suffix = await rows('DebtorClient', [{ PropertyName: 'Name', FilterValue: '*GmbH' }]);
      expect(suffix.map((d) => d.Name).sort()).toEqual(['Fahrradflotte Hamburg GmbH', 'Kieler Radverleih GmbH']);
      const middle = await rows('DebtorClient', [{ PropertyName: 'Name', FilterValue: 'Cykel*Viby*' }]);
      expect(middle.map((d) => d.Name)).toEqual(['Cykelsmeden i Viby ApS']);
    });

    it('wildcards: ? is exactly one character, also with *', async () => {
      const one = await rows('InvItemClient', [{ PropertyName: 'Item', FilterValue: 'EB-100?' }]);
      expect(one.length).toBeGreaterThan(0);
      for (const i of one) expect(i.Item).toMatch(/^EB-100.$/i);
      const accounts = await rows('GLAccountClient', [{ PropertyName: 'Account', FilterValue: '10?0' }]);
      expect(accounts.map((a) => a.Account)).toContain('1010');
      for (const a of accounts) expect(a.Account).toMatch(/^10.0$/);
      expect(await rows('GLAccountClient', [{ PropertyName: 'Account', FilterValue: '1?' }])).toEqual([]);
    });

    it('lists: a;b;c (alternatives may themselves be wildcards or ranges)', async () => {
      const three = await rows('DebtorClient', [{ PropertyName: 'Account', FilterValue: '10001;10002;10007' }]);
      expect(three.map((d) => d.Account)).toEqual(['10001', '10002', '10007']);
      const mixed = await rows('InvItemClient', [{ PropertyName: 'Item', FilterValue: 'EB-1001;KB-*' }]);
      expect(mixed).toHaveLength(13);
    });

    it('ranges a..b, inclusive: strings, numbers and dd-MM-yyyy dates; either side may be open', async () => {
      const accounts = await rows('DebtorClient', [{ PropertyName: 'Account', FilterValue: '10010..10019' }]);
      expect(accounts.map((d) => d.Account)).toEqual(Array.from({ length: 10 }, (_, i) => String(10010 + i)));
      const priced = await rows('InvItemClient', [{ PropertyName: 'SalesPrice1', FilterValue: '100..200' }]);
      expect(priced.length).toBeGreaterThan(0);
      for (const it of priced) expect(it.SalesPrice1 >= 100 && it.SalesPrice1 <= 200).toBe(true);
      const january = await rows('GLTransClient', [{ PropertyName: 'Date', FilterValue: '01-01-2025..31-01-2025' }]);
      expect(january.length).toBeGreaterThan(1000);
      for (const t of january) expect(t.Date >= '2025-01-01' && t.Date <= '2025-01-31T00:00:00').toBe(true);
      expect(january.some((t) => t.Date === '2025-01-31T00:00:00')).toBe(true);
      const fromDec = await rows('DebtorInvoiceClient', [{ PropertyName: 'Date', FilterValue: '01-12-2026..' }]);
      expect(fromDec.length).toBeGreaterThan(0);
      for (const inv of fromDec) expect(inv.Date >= '2026-12-01').toBe(true);
      const upTo = await rows('DebtorInvoiceClient', [{ PropertyName: 'Date', FilterValue: '..31-01-2025' }]);
      for (const inv of upTo) expect(inv.Date <= '2025-01-31T00:00:00').toBe(true);
      const exactDay = await rows('GLTransClient', [{ PropertyName: 'Date', FilterValue: '2-1-2025' }]);
      expect(exactDay.length).toBeGreaterThan(0);
      for (const t of exactDay) expect(t.Date).toBe('2025-01-02T00:00:00');
    });

    it('ISO date literals: 400 by default, accepted with acceptIsoDates', async () => {
      const iso = [{ PropertyName: 'Date', FilterValue: '2025-01-01..2025-01-31' }];
      const refused = await query('GLTransClient', iso);
      expect(refused.status).toBe(400);
      expect(refused.text).toMatch(/dd-MM-yyyy/);
      sandbox.setSwitches({ acceptIsoDates: true });
      const accepted = await rows('GLTransClient', iso);
      sandbox.resetSwitches();
      const dmy = await rows('GLTransClient', [{ PropertyName: 'Date', FilterValue: '01-01-2025..31-01-2025' }]);
      expect(accepted).toEqual(dmy);
    });

    it('answers 400 for a value that cannot be read as the property type', async () => {
      expect((await query('GLTransClient', [{ PropertyName: 'Date', FilterValue: '31-02-2025' }])).status).toBe(400);
      expect((await query('InvItemClient', [{ PropertyName: 'SalesPrice1', FilterValue: 'cheap' }])).status).toBe(400);
      expect((await query('InvItemClient', [{ PropertyName: 'Blocked', FilterValue: 'maybe' }])).status).toBe(400);
      expect((await query('InvItemClient', [{ Skip: -1 }])).status).toBe(400);
    });

    it('ANDs the entries', async () => {
      const both = await rows('GLTransClient', [
        { PropertyName: 'Account', FilterValue: '5200' },
        { PropertyName: 'DCAccount', FilterValue: '10006' },
        { PropertyName: 'Date', FilterValue: '01-01-2025..31-12-2025' },
      ]);
      expect(both.length).toBeGreaterThan(0);
      for (const t of both) {
        expect(t).toMatchObject({ Account: '5200', DCAccount: '10006', DCType: 'Debtor' });
        expect(t.Date.startsWith('2025-')).toBe(true);
      }
    });

    it('an unknown PropertyName is ignored (ignore) or 400 naming it (reject), for filters and sorts', async () => {
      const all = await rows('DebtorClient', []);
      await expectUnknown(
        mode,
        'DebtorClient',
        [{ PropertyName: 'NoSuchProperty', FilterValue: 'x' }],
        'NoSuchProperty',
        async () => {
          expect(await rows('DebtorClient', [{ PropertyName: 'NoSuchProperty', FilterValue: 'x' }])).toEqual(all);
        },
      );
      await expectUnknown(
        mode,
        'DebtorClient',
        [{ PropertyName: 'account', FilterValue: '10001' }],
        'account',
        async () => {
          expect(await rows('DebtorClient', [{ PropertyName: 'account', FilterValue: '10001' }])).toEqual(all);
        },
      );
      await expectUnknown(
        mode,
        'DebtorClient',
        [{ PropertyName: 'NoSuchProperty', OrderByDescending: true }],
        'NoSuchProperty',
        async () => {
          expect(await rows('DebtorClient', [{ PropertyName: 'NoSuchProperty', OrderByDescending: true }])).toEqual(
            all,
          );
        },
      );
      // Not an upstream property: RowId is in no document (docs/decisions/connector-ledger.md, 'The ledger pages
      // without RowId: documented keys, checked boundaries').
      await expectUnknown(
        mode,
        'GLTransClient',
        [{ PropertyName: 'RowId', OrderBy: true }, { Take: 3 }],
        'RowId',
        () => {},
      );
      // An empty FilterValue on a real property is no filter in either mode.
      expect(await rows('DebtorClient', [{ PropertyName: 'Name', FilterValue: '' }])).toEqual(all);
      expect(sandbox.switches.unknownProperties).toBe(mode);
    });

    it('reads QueryFilter member names case-insensitively', async () => {
      const r = await rows('DebtorClient', [
        { propertyName: 'Account', filterValue: '10003' },
        { skip: 0, take: 5 },
      ]);
      expect(r.map((d) => d.Account)).toEqual(['10003']);
    });
  });

  describe('ledger sandbox: sorting and paging', () => {
    it('OrderBy sorts ascending, OrderByDescending descending; ties keep the natural order', async () => {
      const asc = await rows('DebtorClient', [{ PropertyName: 'Name', OrderBy: true }]);
      const names = asc.map((d) => d.Name.toLowerCase());
      expect(names).toEqual([...names].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));
      const desc = await rows('InvItemClient', [{ PropertyName: 'SalesPrice1', OrderByDescending: true }]);
      for (let i = 1; i < desc.length; i++) expect(desc[i - 1].SalesPrice1).toBeGreaterThanOrEqual(desc[i].SalesPrice1);
      const byGroup = await rows('InvItemClient', [{ PropertyName: 'Group', OrderBy: true }]);
      const natural = await rows('InvItemClient', []);
      for (const g of LEDGER_PRODUCT_GROUPS) {
        expect(byGroup.filter((it) => it.Group === g).map((it) => it.Item)).toEqual(
          natural.filter((it) => it.Group === g).map((it) => it.Item),
        );
      }
    });

    it('sorts by several entries in order (first is the primary key)', async () => {
      const sorted = await rows('InvItemClient', [
        { PropertyName: 'Group', OrderBy: true },
        { PropertyName: 'SalesPrice1', OrderByDescending: true },
      ]);
      for (let i = 1; i < sorted.length; i++) {
        const [a, b] = [sorted[i - 1], sorted[i]];
        expect(a.Group <= b.Group).toBe(true);
        if (a.Group === b.Group) expect(a.SalesPrice1).toBeGreaterThanOrEqual(b.SalesPrice1);
      }
    });

    it('Skip/Take in a separate entry', async () => {
      const all = await rows('InvItemClient', [{ PropertyName: 'Item', OrderBy: true }]);
      const page = await rows('InvItemClient', [
        { PropertyName: 'Item', OrderBy: true },
        { Skip: 10, Take: 5 },
      ]);
      expect(page).toEqual(all.slice(10, 15));
    });

    it('Skip/Take/OrderBy merged into the filter entry', async () => {
      const all = await rows('InvItemClient', [{ PropertyName: 'Group', FilterValue: 'PARTS' }]);
      const merged = await rows('InvItemClient', [{ PropertyName: 'Group', FilterValue: 'PARTS', Skip: 2, Take: 3 }]);
      expect(merged).toEqual(all.slice(2, 5));
      const sortedMerged = await rows('InvItemClient', [
        { PropertyName: 'Name', FilterValue: 'Chain*', OrderByDescending: true, Skip: 0, Take: 1 },
      ]);
      expect(sortedMerged).toHaveLength(1);
      expect(sortedMerged[0].Name).toBe('Chain, standard');
    });

    it('Take 0 or missing means every row; Skip past the end gives []; a URL ?top= is ignored', async () => {
      expect(await rows('InvItemClient', [{ Take: 0 }])).toHaveLength(150);
      expect(await rows('InvItemClient', [{ Skip: 140 }])).toHaveLength(10);
      expect(await rows('InvItemClient', [{ Skip: 500, Take: 10 }])).toEqual([]);
      const top = await call('/Query/Get/InvItemClient?top=5', [], { token: demoToken });
      expect(top.json()).toHaveLength(150);
    });

    it('pages of 1000 with a stable sort add up to the unpaged read', async () => {
      const body = [
        { PropertyName: 'Date', FilterValue: '01-01-2025..31-03-2025' },
        { PropertyName: 'Voucher', OrderBy: true },
      ];
      const whole = await rows('GLTransClient', body);
      expect(whole.length).toBeGreaterThan(4000);
      const pages: any[] = [];
      for (let skip = 0; ; skip += 1000) {
        const page = await rows('GLTransClient', [...body, { Skip: skip, Take: 1000 }]);
        pages.push(...page);
        if (page.length < 1000) break;
      }
      expect(pages).toEqual(whole);
    });
  });

  describe('ledger sandbox: no invented row id, and unstable tie order', () => {
    it('no entity carries RowId; the documented keys identify the rows', async () => {
      for (const entity of LEDGER_ENTITIES)
        for (const row of await rows(entity)) expect(row).not.toHaveProperty('RowId');
      const postings = await rows('GLTransClient');
      expect(new Set(postings.map((r) => `${r.Voucher}/${r.VoucherLine}`)).size).toBe(postings.length);
      const items = await rows('InvItemClient');
      expect(new Set(items.map((r) => r.Item)).size).toBe(items.length);
    });

    it('unstableTieOrder: pages sorted on Date alone repeat and skip rows; Voucher, VoucherLine fix it', async () => {
      sandbox.setSwitches({ unstableTieOrder: true });
      const range = { PropertyName: 'Date', FilterValue: '01-01-2025..31-03-2025' };
      const whole = await rows('GLTransClient', [range]);
      const readPages = async (sort: unknown[]) => {
        const ids: string[] = [];
        for (let skip = 0; ; skip += 1000) {
          const page = await rows('GLTransClient', [range, ...sort, { Skip: skip, Take: 1000 }]);
          ids.push(...page.map((r) => `${r.Voucher}/${r.VoucherLine}`));
          if (page.length < 1000) break;
        }
        return ids;
      };
      const byDate = await readPages([{ PropertyName: 'Date', OrderBy: true }]);
      expect(byDate).toHaveLength(whole.length);
      expect(new Set(byDate).size).toBeLessThan(whole.length); // repeated (and so skipped) rows
      const stable = await readPages([
        { PropertyName: 'Date', OrderBy: true },
        { PropertyName: 'Voucher', OrderBy: true },
        { PropertyName: 'VoucherLine', OrderBy: true },
      ]);
      expect(new Set(stable).size).toBe(whole.length);
    });

    it('reject mode is an option and a switch: the reset returns to the option', async () => {
      const other = mode === 'ignore' ? 'reject' : 'ignore';
      sandbox.setSwitches({ unknownProperties: other });
      expect((await query('DebtorClient', [{ PropertyName: 'NoSuchProperty', FilterValue: 'x' }])).status).toBe(
        other === 'reject' ? 400 : 200,
      );
      expect(() => sandbox.setSwitches({ unknownProperties: 'strict' as never })).toThrow(TypeError);
      sandbox.resetSwitches();
      expect(sandbox.switches.unknownProperties).toBe(mode);
      await expect(startLedgerSandbox({ port: 0, unknownProperties: 'strict' as never })).rejects.toThrow(TypeError);
    });

    it('logs the Query/Get requests it saw (entity and body), the most recent 1000', async () => {
      sandbox.resetStats();
      await rows('InvItemClient', [{ PropertyName: 'Item', OrderBy: true }, { Take: 2 }]);
      expect(sandbox.stats.queryLog).toEqual([
        { entity: 'InvItemClient', body: [{ PropertyName: 'Item', OrderBy: true }, { Take: 2 }] },
      ]);
      for (let i = 0; i < 1005; i++) sandbox.stats.queryLog.push({ entity: 'X', body: [] });
      await rows('InvGroupClient');
      expect(sandbox.stats.queryLog).toHaveLength(1000);
      expect(sandbox.stats.queryLog.at(-1)).toEqual({ entity: 'InvGroupClient', body: [] });
      sandbox.resetStats();
      expect(sandbox.stats.queryLog).toEqual([]);
    });
  });

  describe('ledger sandbox: replies', () => {
    it('every entity answers a bare array with PascalCase keys; dates as yyyy-MM-ddT00:00:00', async () => {
      for (const entity of LEDGER_ENTITIES) {
        const list = await rows(entity, [{ Take: 50 }]);
        expect(Array.isArray(list), entity).toBe(true);
        expect(list.length, entity).toBeGreaterThan(0);
        for (const row of list) {
          for (const [key, value] of Object.entries(row)) {
            expect(key, `${entity}.${key}`).toMatch(/^[A-Z][A-Za-z0-9]*$/);
            expect(value, `${entity}.${key}`).not.toBeNull();
            if (/Date$|^LastMovement$|^NextInvoice$|^SubscriptionEnded$/.test(key))
              expect(value, `${entity}.${key}`).toMatch(ISO_DAY);
          }
        }
      }
    });

    it('omits null properties instead of sending null', async () => {
      const [counter] = await rows('DebtorClient', [{ PropertyName: 'Account', FilterValue: '10000' }]);
      expect(counter).not.toHaveProperty('CompanyRegNo');
      expect(counter).not.toHaveProperty('Currency');
      expect(counter).not.toHaveProperty('Address3');
      const [hamburg] = await rows('DebtorClient', [{ PropertyName: 'Name', FilterValue: 'Fahrradflotte*' }]);
      expect(hamburg).toMatchObject({ Currency: 'EUR', Country: 80, CountryName: 'Germany' });
      expect(typeof hamburg.CurBalanceCur).toBe('number');
    });

    it('includes the inherited (†) properties on open items and invoices', async () => {
      for (const entity of ['DebtorTransOpenClient', 'CreditorTransOpenClient']) {
        const list = await rows(entity);
        expect(list.length, entity).toBeGreaterThan(0);
        for (const row of list)
          for (const key of [
            'Account',
            'Name',
            'Date',
            'Voucher',
            'Invoice',
            'DueDate',
            'Amount',
            'AmountOpen',
            'Text',
          ])
            expect(row, `${entity}.${key}`).toHaveProperty(key);
      }
      const [inv] = await rows('DebtorInvoiceClient', [{ Take: 1 }]);
      for (const key of [
        'PrimaryKeyId',
        'InvoiceNumber',
        'Account',
        'Name',
        'Date',
        'DueDate',
        'NetAmount',
        'VatAmount',
        'TotalAmount',
        'SalesValue',
        'Margin',
        'Paid',
      ])
        expect(inv).toHaveProperty(key);
    });

    it('drops the invoice Paid flag (and ignores or rejects filters on it) when invoicePaidFlag is off', async () => {
      const unpaid = await rows('DebtorInvoiceClient', [{ PropertyName: 'Paid', FilterValue: 'false' }]);
      expect(unpaid.length).toBeGreaterThan(0);
      expect(unpaid.length).toBeLessThan(200);
      sandbox.setSwitches({ invoicePaidFlag: false });
      await expectUnknown(
        mode,
        'DebtorInvoiceClient',
        [{ PropertyName: 'Paid', FilterValue: 'false' }],
        'Paid',
        async () => {
          const list = await rows('DebtorInvoiceClient', [{ PropertyName: 'Paid', FilterValue: 'false' }]);
          expect(list).toHaveLength(200);
        },
      );
      for (const inv of await rows('DebtorInvoiceClient')) expect(inv).not.toHaveProperty('Paid');
    });
  });

  describe('ledger sandbox: …ClientUser custom fields', () => {
    it('InvItemClientUser returns and filters Brand, WarrantyMonths; InvItemClient ignores the filter', async () => {
      const [brandField, warrantyField] = LEDGER_USER_FIELDS.InvItemClientUser;
      const user = await rows('InvItemClientUser', [{ PropertyName: 'Group', FilterValue: 'EBIKES' }]);
      for (const it of user) {
        expect(typeof it[brandField]).toBe('string');
        expect(typeof it[warrantyField]).toBe('number');
      }
      const voltvej = await rows('InvItemClientUser', [{ PropertyName: brandField, FilterValue: 'voltvej' }]);
      expect(voltvej.length).toBeGreaterThan(0);
      expect(voltvej.length).toBeLessThan(150);
      for (const it of voltvej) expect(it.Brand).toBe('Voltvej');
      await expectUnknown(
        mode,
        'InvItemClient',
        [{ PropertyName: brandField, FilterValue: 'voltvej' }],
        brandField,
        async () => {
          expect(await rows('InvItemClient', [{ PropertyName: brandField, FilterValue: 'voltvej' }])).toHaveLength(150);
        },
      );
      const base = await rows('InvItemClient');
      for (const it of base) {
        expect(it).not.toHaveProperty(brandField);
        expect(it).not.toHaveProperty(warrantyField);
      }
      // Service items have no brand: the property is omitted, not null.
      const service = await rows('InvItemClientUser', [{ PropertyName: 'Group', FilterValue: 'SERVICE' }]);
      for (const it of service) expect(it).not.toHaveProperty('Brand');
    });

    it('DebtorClientUser returns and filters Segment and SalesRep; DebtorClient ignores them', async () => {
      const [segment, salesRep] = LEDGER_USER_FIELDS.DebtorClientUser;
      const publicSector = await rows('DebtorClientUser', [{ PropertyName: segment, FilterValue: 'Public' }]);
      expect(publicSector.length).toBe(4);
      for (const d of publicSector) expect(typeof d[salesRep]).toBe('string');
      await expectUnknown(
        mode,
        'DebtorClient',
        [{ PropertyName: segment, FilterValue: 'Public' }],
        segment,
        async () => {
          expect(await rows('DebtorClient', [{ PropertyName: segment, FilterValue: 'Public' }])).toHaveLength(40);
        },
      );
      for (const d of await rows('DebtorClient')) expect(d).not.toHaveProperty(segment);
      const sortedByRep = await rows('DebtorClientUser', [{ PropertyName: salesRep, OrderBy: true }]);
      expect(sortedByRep[0]).not.toHaveProperty(salesRep); // missing values sort first
    });
  });

  describe('ledger sandbox: companies and scoping', () => {
    it('CompanyClient lists every company of the user by default, the logged-in one in loggedIn mode', async () => {
      const all = await rows('CompanyClient');
      expect(all.map((c) => c.PrimaryKeyId).sort()).toEqual([LEDGER_DEMO_COMPANY_ID, LEDGER_DEMO_SECOND_COMPANY_ID]);
      for (const c of all) {
        expect(c).not.toHaveProperty('CompanyId');
        expect(c).toMatchObject({ Country: 57, CountryName: 'Denmark', Currency: 'DKK' });
        expect(typeof c.Id).toBe('string');
      }
      sandbox.setSwitches({ companyClientMode: 'loggedIn' });
      expect((await rows('CompanyClient')).map((c) => c.PrimaryKeyId)).toEqual([LEDGER_DEMO_COMPANY_ID]);
      expect((await rows('CompanyClient', [], secondToken)).map((c) => c.PrimaryKeyId)).toEqual([
        LEDGER_DEMO_SECOND_COMPANY_ID,
      ]);
    });

    it("answers every query from the token's company only", async () => {
      const first = await rows('DebtorClient');
      const second = await rows('DebtorClient', [], secondToken);
      expect(second).toHaveLength(6);
      expect(second.map((d) => d.Name)).toContain('Nordlys Cykler ApS');
      const firstAccounts = new Set(first.map((d) => d.Account));
      for (const d of second) expect(firstAccounts.has(d.Account)).toBe(false);
      expect(await rows('InvItemClient', [], secondToken)).toEqual([]);
      const gl = await rows('GLTransClient', [{ PropertyName: 'Voucher', FilterValue: '10001..10010' }], secondToken);
      expect(gl).toEqual([]);
      expect((await rows('GLTransClient', [], secondToken)).length).toBeLessThan(5000);
    });
  });

  describe('ledger sandbox: write endpoints', () => {
    it('reads never touch the write log', async () => {
      sandbox.resetStats();
      await rows('DebtorClient');
      await login(sandbox.credentials.loginUsername, LEDGER_DEMO_PASSWORD);
      expect(sandbox.stats.writeLog).toEqual([]);
    });

    it('answers 405 on /Crud/*, /GLJournal/*, /Invoice/* and records each attempt', async () => {
      sandbox.resetStats();
      const attempts: Array<[string, string]> = [
        ['POST', '/Crud/Insert/DebtorClient'],
        ['PUT', '/Crud/Update'],
        ['DELETE', '/crud/Delete'],
        ['POST', '/GLJournal/PostJournal'],
        ['POST', '/Invoice/PostInvoice'],
      ];
      for (const [method, path] of attempts) {
        const r = await call(path, [{ Account: '10001' }], { method, token: demoToken });
        expect(r.status, path).toBe(405);
      }
      expect(sandbox.stats.writeLog.map((w) => [w.method, w.path])).toEqual(attempts);
      expect(sandbox.stats.writeLog[0]!.body).toEqual([{ Account: '10001' }]);
      sandbox.resetStats();
      expect(sandbox.stats.writeLog).toEqual([]);
    });
  });

  describe('ledger sandbox: switches, faults and quota', () => {
    it('fails the next N requests with the given status, then recovers', async () => {
      sandbox.setSwitches({ failNextRequests: 2, failStatus: 503 });
      expect((await query('DebtorClient')).status).toBe(503);
      expect((await login(sandbox.credentials.loginUsername, LEDGER_DEMO_PASSWORD)).status).toBe(503);
      expect(sandbox.switches.failNextRequests).toBe(0);
      expect((await query('DebtorClient')).status).toBe(200);
    });

    it('limits latency and failures to queries with faultScope "query"', async () => {
      sandbox.setSwitches({ failNextRequests: 1, failStatus: 502, faultScope: 'query', latencyMs: 5 });
      expect((await login(sandbox.credentials.loginUsername, LEDGER_DEMO_PASSWORD)).status).toBe(200);
      expect((await query('DebtorClient')).status).toBe(502);
      expect((await query('DebtorClient')).status).toBe(200);
    });

    it('loginMaintenancePage: /login answers an HTML page with 200 or 503; queries are unaffected', async () => {
      for (const status of [200, 503] as const) {
        sandbox.setSwitches({ loginMaintenancePage: status });
        const r = await login(sandbox.credentials.loginUsername, LEDGER_DEMO_PASSWORD);
        expect(r.status).toBe(status);
        expect(r.contentType).toMatch(/^text\/html/);
        expect(r.text).toMatch(/^<!DOCTYPE html>/);
      }
      expect((await query('GLVatClient')).status).toBe(200);
    });

    it('latency: answers normally after the delay; a client that gives up is released', async () => {
      sandbox.setSwitches({ latencyMs: 10 });
      expect((await query('GLVatClient')).json()).toHaveLength(8);
      sandbox.setSwitches({ latencyMs: 600_000 });
      const controller = new AbortController();
      const pending = call('/Query/Get/GLVatClient', [], { token: demoToken, signal: controller.signal });
      await vi.waitFor(() => expect(sandbox.stats.lastRequest?.path).toBe('/Query/Get/GLVatClient'));
      controller.abort();
      await expect(pending).rejects.toThrow();
    });

    it('quota: counts calls per user and refuses once the daily limit is reached', async () => {
      sandbox.resetStats();
      sandbox.setSwitches({ quotaEnabled: true, quotaPerDay: 3 });
      const fresh = (await login(sandbox.credentials.loginUsername, LEDGER_DEMO_PASSWORD)).json().token as string;
      expect((await query('GLVatClient', [], fresh)).status).toBe(200);
      expect((await query('GLVatClient', [], fresh)).status).toBe(200);
      const refused = await query('GLVatClient', [], fresh);
      expect(refused.status).toBe(429);
      expect(refused.text).toMatch(/daily limit/);
      expect(sandbox.stats.callsByUser[LEDGER_DEMO_USER]).toBe(3);
      expect((await login(sandbox.credentials.loginUsername, LEDGER_DEMO_PASSWORD)).status).toBe(429);
      sandbox.setSwitches({ quotaStatus: 403 });
      expect((await query('GLVatClient', [], fresh)).status).toBe(403);
      sandbox.setSwitches({ quotaEnabled: false });
      expect((await query('GLVatClient', [], fresh)).status).toBe(200);
    });

    it('the quota is off by default and counts anyway', async () => {
      sandbox.resetStats();
      expect(sandbox.switches.quotaEnabled).toBe(false);
      for (let i = 0; i < 3; i++) await query('GLVatClient');
      expect(sandbox.stats.callsByUser[LEDGER_DEMO_USER]).toBe(3);
      expect(sandbox.stats.queriesByEntity.GLVatClient).toBe(3);
    });

    it('switches, stats and reset over HTTP at /__sandbox/...', async () => {
      const set = await call('/__sandbox/switches', { companyClientMode: 'loggedIn', acceptIsoDates: true });
      expect(set.status).toBe(200);
      expect(set.json()).toMatchObject({ companyClientMode: 'loggedIn', acceptIsoDates: true });
      expect(sandbox.switches.companyClientMode).toBe('loggedIn');
      expect((await rows('CompanyClient')).length).toBe(1);
      expect((await call('/__sandbox/switches', { latencyMs: -1 })).status).toBe(400);
      expect((await call('/__sandbox/switches', { noSuchSwitch: true })).status).toBe(400);
      expect((await call('/__sandbox/switches', undefined, { method: 'GET' })).json()).toMatchObject({
        companyClientMode: 'loggedIn',
      });
      const stats = (await call('/__sandbox/stats', undefined, { method: 'GET' })).json();
      expect(stats).toMatchObject({ writeLog: [] });
      expect(stats.queries).toBeGreaterThan(0);
      const reset = await call('/__sandbox/reset', {});
      expect(reset.json().switches.companyClientMode).toBe('all');
      expect(sandbox.stats.requests).toBe(0);
      expect(() => sandbox.setSwitches({ loginFailureStatus: 500 as never })).toThrow(TypeError);
    });
  });
});

describe('ledger sandbox: demo data', () => {
  useSandbox('ignore');

  let gl: any[];

  beforeAll(async () => {
    gl = await rows('GLTransClient', []);
  });

  it('has more than 50,000 GLTransClient postings over 2025-2026 with the properties the tools read', () => {
    expect(gl.length).toBeGreaterThan(50_000);
    expect(gl.length).toBeLessThan(70_000);
    const years = new Set(gl.map((t) => t.Date.slice(0, 4)));
    expect([...years].sort()).toEqual(['2025', '2026']);
    for (const t of gl.slice(0, 2000))
      for (const key of ['Date', 'Account', 'Voucher', 'VoucherLine', 'Amount', 'Text', 'TransType'])
        expect(t).toHaveProperty(key);
    const dc = gl.filter((t) => t.DCAccount !== undefined);
    expect(new Set(dc.map((t) => t.DCType))).toEqual(new Set(['Debtor', 'Creditor']));
  });

  it('has a property with more than 1,000 distinct values (Voucher)', () => {
    expect(new Set(gl.map((t) => t.Voucher)).size).toBeGreaterThan(1000);
  });

  it('has a few non-numeric Amount strings, all on the suspense account', () => {
    const odd = gl.filter((t) => typeof t.Amount !== 'number');
    expect(odd.length).toBeGreaterThanOrEqual(3);
    expect(odd.length).toBeLessThan(20);
    for (const t of odd) {
      expect(typeof t.Amount).toBe('string');
      expect(Number.isFinite(Number(t.Amount))).toBe(false);
      expect(t.Account).toBe(LEDGER_NON_NUMERIC_ACCOUNT);
    }
  });

  it('balances every voucher and matches GLAccountClient ThisYear/PrevYear', async () => {
    const byVoucher = new Map<number, number>();
    const byAccountYear = new Map<string, number>();
    for (const t of gl) {
      if (typeof t.Amount !== 'number') continue;
      byVoucher.set(t.Voucher, (byVoucher.get(t.Voucher) ?? 0) + t.Amount);
      const key = `${t.Account}|${t.Date.slice(0, 4)}`;
      byAccountYear.set(key, (byAccountYear.get(key) ?? 0) + t.Amount);
    }
    for (const [voucher, sum] of byVoucher) expect(Math.abs(sum), `voucher ${voucher}`).toBeLessThan(0.005);
    const accounts = await rows('GLAccountClient');
    expect(accounts.length).toBeGreaterThanOrEqual(75);
    const postable = accounts.filter((a) => a.AccountType !== 'Header' && a.AccountType !== 'Sum');
    for (const a of postable) {
      expect(typeof a.ThisYear).toBe('number');
      expect(typeof a.PrevYear).toBe('number');
      expect(a.ThisYear).toBeCloseTo(byAccountYear.get(`${a.Account}|2026`) ?? 0, 1);
      expect(a.PrevYear).toBeCloseTo(byAccountYear.get(`${a.Account}|2025`) ?? 0, 1);
    }
    expect(postable.filter((a) => a.ThisYear !== 0 && a.PrevYear !== 0).length).toBeGreaterThan(50);
  });

  it('has the §4 volumes: debtors, creditors, invoices, orders, VAT codes, items and groups', async () => {
    expect(await rows('DebtorClient')).toHaveLength(40);
    expect(await rows('CreditorClient')).toHaveLength(25);
    expect(await rows('DebtorInvoiceClient')).toHaveLength(200);
    expect(await rows('DebtorOrderClient')).toHaveLength(30);
    expect(await rows('GLVatClient')).toHaveLength(8);
    const items = await rows('InvItemClient');
    expect(items).toHaveLength(150);
    const groups = await rows('InvGroupClient');
    expect(groups.map((g) => g.Group)).toEqual([...LEDGER_PRODUCT_GROUPS]);
    for (const it of items) expect(LEDGER_PRODUCT_GROUPS).toContain(it.Group);
    for (const g of LEDGER_PRODUCT_GROUPS)
      expect(items.filter((it) => it.Group === g).length).toBeGreaterThanOrEqual(10);
  });

  it('has open items, some overdue, and debtor balances equal to their open items', async () => {
    const open = await rows('DebtorTransOpenClient');
    expect(open.length).toBeGreaterThan(5);
    const overdue = open.filter((o) => o.DueDate < `${LEDGER_DEMO_AS_OF}T00:00:00`);
    expect(overdue.length).toBeGreaterThan(2);
    expect(overdue.length).toBeLessThan(open.length);
    const debtors = await rows('DebtorClient');
    for (const d of debtors) {
      const sum = open.filter((o) => o.Account === d.Account).reduce((s, o) => s + o.AmountOpen, 0);
      expect(d.CurBalance, d.Account).toBeCloseTo(sum, 1);
    }
    expect((await rows('CreditorTransOpenClient')).length).toBeGreaterThan(0);
  });

  it('has about 4,000 InvTransClient rows; sales lines have negative Qty each quarter of 2025 and 2026', async () => {
    const trans = await rows('InvTransClient');
    expect(trans.length).toBeGreaterThan(3500);
    expect(trans.length).toBeLessThan(4500);
    for (const t of trans) expect(LEDGER_MOVEMENT_TYPES).toContain(t.MovementType);
    const sales = trans.filter((t) => t.MovementType === 'Debtor' && t.Qty < 0);
    expect(sales.length).toBeGreaterThan(trans.length / 2);
    const quarters = new Set(
      sales.map((t) => `${t.Date.slice(0, 4)}-Q${Math.floor((Number(t.Date.slice(5, 7)) - 1) / 3) + 1}`),
    );
    expect([...quarters].sort()).toEqual([
      '2025-Q1',
      '2025-Q2',
      '2025-Q3',
      '2025-Q4',
      '2026-Q1',
      '2026-Q2',
      '2026-Q3',
      '2026-Q4',
    ]);
    expect(trans.filter((t) => t.MovementType === 'Creditor').every((t) => t.Qty > 0)).toBe(true);
    // Units sold per product group can be derived as the spec's rule 4 describes.
    const items = await rows('InvItemClient', [{ PropertyName: 'Group', FilterValue: 'EBIKES' }]);
    const sold = await rows('InvTransClient', [
      { PropertyName: 'Item', FilterValue: items.map((it) => it.Item).join(';') },
      { PropertyName: 'Date', FilterValue: '01-04-2026..30-06-2026' },
    ]);
    const units = -sold.filter((t) => t.Qty < 0).reduce((s, t) => s + t.Qty, 0);
    expect(units).toBeGreaterThan(0);
  });

  it('is deterministic: a second sandbox serves identical rows', async () => {
    const other = await startLedgerSandbox({ port: 0 });
    try {
      const res = await fetch(`${other.url}/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ Username: other.credentials.loginUsername, Password: other.credentials.password }),
      });
      const { token } = (await res.json()) as { token: string };
      const body = JSON.stringify([{ PropertyName: 'Account', FilterValue: '1060' }, { Take: 200 }]);
      const a = await fetch(`${other.url}/Query/Get/GLTransClient`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
        body,
      }).then((r) => r.text());
      const b = (await query('GLTransClient', JSON.parse(body))).text;
      expect(a).toBe(b);
    } finally {
      await other.close();
    }
  });
});

describe('ledger sandbox: script mode', () => {
  it('starts with the demo credentials and prints its URL when run with node', async () => {
    const script = fileURLToPath(new URL('../sandbox/ledger/server.ts', import.meta.url));
    const child = spawn(process.execPath, [script], {
      env: { ...process.env, LEDGER_SANDBOX_PORT: '0' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    try {
      let output = '';
      child.stdout.setEncoding('utf8');
      const url = await new Promise<string>((resolve, reject) => {
        child.stdout.on('data', (chunk: string) => {
          output += chunk;
          if (output.includes(LEDGER_DEMO_PASSWORD)) resolve(output.split('\n')[0]!.trim());
        });
        child.once('exit', (code) => reject(new Error(`sandbox exited early with ${String(code)}`)));
      });
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(output).toContain(LEDGER_DEMO_USER);
      expect(output).toContain(String(LEDGER_DEMO_COMPANY_ID));
      const res = await fetch(`${url}/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          Username: `00${LEDGER_DEMO_COMPANY_ID}/${LEDGER_DEMO_USER}`,
          Password: LEDGER_DEMO_PASSWORD,
        }),
      });
      const { token } = (await res.json()) as { token: string };
      const list = await fetch(`${url}/Query/Get/GLVatClient`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
        body: '[]',
      }).then((r) => r.json());
      expect(list).toHaveLength(8);
    } finally {
      child.kill('SIGTERM');
      if (child.exitCode === null) await once(child, 'exit');
    }
  });
});
