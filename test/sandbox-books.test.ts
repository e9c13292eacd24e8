// The Dinero sandbox over raw HTTP, item by item of ../shared/upstreams/books.md §4 (what a faithful
// fake must do): bearer tokens and organisations, the rate limit, both envelope shapes, the `fields`
// echo, the queryFilter grammar, invoice filters, bare arrays, PDFs, reports, entries, brownout,
// faults, and the demo data. No connector code is involved.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  BOOKS_BIG_FILE_BYTES,
  BOOKS_BIG_FILE_GUID,
  BOOKS_DEMO_ORG_ID,
  BOOKS_FREE_ORG_ID,
  BOOKS_REMINDED_INVOICE_GUID,
  BOOKS_THROTTLED_ORG_ID,
  type Row,
} from '../sandbox/books/data.ts';
import { BOOKS_FIELDS } from '../sandbox/books/documented-fields.ts';
import {
  BOOKS_SANDBOX_OTHER_USER_TOKEN,
  BOOKS_SANDBOX_TOKEN,
  type BooksSandbox,
  startBooksSandbox,
} from '../sandbox/books/server.ts';

const O = BOOKS_DEMO_ORG_ID;
let sandbox: BooksSandbox;

async function get(
  path: string,
  options: { token?: string | null; accept?: string; method?: string; body?: unknown } = {},
) {
  const headers: Record<string, string> = { accept: options.accept ?? 'application/json' };
  const token = options.token === undefined ? BOOKS_SANDBOX_TOKEN : options.token;
  if (token !== null) headers.authorization = `Bearer ${token}`;
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`${sandbox.url}${path}`, {
    method: options.method ?? 'GET',
    headers,
    ...(options.body !== undefined ? { body: JSON.stringify(options.body) } : {}),
  });
  const bytes = Buffer.from(await res.arrayBuffer());
  const text = bytes.toString('utf8');
  let json: any;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, text, json, bytes };
}
const q = (filter: string) => encodeURIComponent(filter);

beforeAll(async () => {
  sandbox = await startBooksSandbox({});
});
afterAll(async () => {
  await sandbox?.close();
});
beforeEach(() => {
  sandbox.resetSwitches();
  sandbox.resetStats();
});

describe('Dinero sandbox: tokens and organisations', () => {
  it('no token, an unknown token or an expired one → 401 {code: 41}', async () => {
    for (const token of [null, 'nope'])
      expect(await get(`/v1/organizations`, { token })).toMatchObject({ status: 401, json: { code: 41 } });
    sandbox.setSwitches({ tokenExpired: true });
    expect((await get(`/v1/${O}/accountingyears`)).json).toMatchObject({
      code: 41,
      message: 'The access token has expired.',
    });
  });

  it('a free organisation → 403 {code: 90} everywhere except /v1/organizations (48 by switch)', async () => {
    expect((await get('/v1/organizations')).status).toBe(200);
    for (const path of ['accountingyears', 'invoices', 'contacts', '2025/reports/saldo', 'files'])
      expect(await get(`/v1/${BOOKS_FREE_ORG_ID}/${path}`)).toMatchObject({ status: 403, json: { code: 90 } });
    sandbox.setSwitches({ proPlanCode: 48 });
    expect((await get(`/v1/${BOOKS_FREE_ORG_ID}/vatTypes`)).json.code).toBe(48);
  });

  it('an organisation outside the token set → 403', async () => {
    expect((await get(`/v1/${O}/vatTypes`, { token: BOOKS_SANDBOX_OTHER_USER_TOKEN })).status).toBe(403);
    expect((await get('/v1/organizations', { token: BOOKS_SANDBOX_OTHER_USER_TOKEN })).json).toEqual([
      { id: BOOKS_FREE_ORG_ID, name: 'Solo Design (gratis)', isPro: false },
    ]);
  });
});

describe('Dinero sandbox: rate limit, brownout, faults', () => {
  it('100 requests a minute per organisation, then 429 text/plain without Retry-After (a switch adds it)', async () => {
    for (let i = 0; i < 100; i++) expect((await get(`/v1/${O}/vatTypes`)).status).toBe(200);
    const over = await get(`/v1/${O}/vatTypes`);
    expect(over.status).toBe(429);
    expect(over.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(over.text).toMatch(/^API calls quota exceeded!/);
    expect(over.headers.get('retry-after')).toBeNull();
    // The quota is per organisation: the organisation list and another organisation are not counted with it.
    expect((await get('/v1/organizations')).status).toBe(200);
    sandbox.setSwitches({ retryAfterSeconds: 3 });
    expect((await get(`/v1/${BOOKS_THROTTLED_ORG_ID}/vatTypes`)).headers.get('retry-after')).toBe('3');
  });

  it('brownout: the chosen endpoint answers 480; a 500 carries JSON {code, message}; faults are counted', async () => {
    sandbox.setSwitches({ brownoutPath: '/products', rateLimitPerMinute: 0 });
    expect((await get(`/v1/${O}/products`)).status).toBe(480);
    expect((await get(`/v1/${O}/vatTypes`)).status).toBe(200);
    sandbox.setSwitches({ fault: 'serverError', faultCount: 1 });
    expect(await get(`/v1/${O}/vatTypes`)).toMatchObject({
      status: 500,
      json: { code: 500, message: expect.any(String) },
    });
    expect((await get(`/v1/${O}/vatTypes`)).status).toBe(200);
    sandbox.setSwitches({ fault: 'nonJson', faultPath: '/invoices' });
    expect((await get(`/v1/${O}/invoices`)).json).toBeUndefined();
    expect((await get(`/v1/${O}/contacts`)).status).toBe(200);
  });

  it('latency injection still answers; the controls are served over HTTP and reject unknown switches', async () => {
    const set = await fetch(`${sandbox.url}/__sandbox/switches`, {
      method: 'POST',
      body: JSON.stringify({ latencyMs: 50 }),
    });
    expect(((await set.json()) as { latencyMs: number }).latencyMs).toBe(50);
    expect((await get(`/v1/${O}/vatTypes`)).status).toBe(200);
    const bad = await fetch(`${sandbox.url}/__sandbox/switches`, { method: 'POST', body: JSON.stringify({ nope: 1 }) });
    expect(bad.status).toBe(400);
    const stats = (await (await fetch(`${sandbox.url}/__sandbox/stats`)).json()) as { requests: number };
    expect(stats.requests).toBe(1);
  });

  it('writes are refused (405) and logged; the two calculators answer and persist nothing', async () => {
    expect((await get(`/v1/${O}/contacts`, { method: 'POST', body: { Name: 'x' } })).status).toBe(405);
    expect((await get(`/v1/${O}/invoices/${BOOKS_REMINDED_INVOICE_GUID}`, { method: 'DELETE' })).status).toBe(405);
    expect(sandbox.stats.writeLog.map((w) => w.method)).toEqual(['POST', 'DELETE']);
    const calc = await get(`/v1/${O}/invoices/fetch`, {
      method: 'POST',
      body: { ProductLines: [{ Description: 'x', Quantity: 1, AccountNumber: 1000, BaseAmountValue: 100 }] },
    });
    expect(calc.json).toMatchObject({ TotalExclVat: 100, TotalVat: 25, TotalInclVat: 125 });
    expect((await get(`/v1/${O}/invoices/fetch`, { method: 'POST', body: { ProductLines: [] } })).json).toMatchObject({
      code: 42,
      validationErrors: { ProductLines: expect.any(String) },
    });
    const preview = await get(`/v1/${O}/invoices/${BOOKS_REMINDED_INVOICE_GUID}/reminders/fetch`, {
      method: 'POST',
      body: {
        Date: '2025-06-20',
        WithFee: true,
        WithInterestFee: true,
        WithCompensationFee: false,
        WithDebtCollectionWarning: true,
      },
    });
    expect(preview.json.code).toBe(42); // already 3 reminders
    expect(sandbox.stats.calculations).toBe(3);
  });
});

describe('Dinero sandbox: envelopes, fields and filters', () => {
  beforeEach(() => sandbox.setSwitches({ rateLimitPerMinute: 0 }));

  it('the envelope: exact keys, 0-based page, default 100, pageSize over 1000 → 400 (or clamped)', async () => {
    const page = (await get(`/v1/${O}/contacts`)).json;
    expect(Object.keys(page)).toEqual(['Collection', 'Pagination']);
    expect(page.Pagination).toEqual({
      MaxPageSizeAllowed: 1000,
      PageSize: 100,
      Result: 100,
      ResultWithoutFilter: 240,
      Page: 0,
    });
    expect((await get(`/v1/${O}/contacts?page=2`)).json.Pagination).toMatchObject({ Page: 2, Result: 40 });
    expect(await get(`/v1/${O}/contacts?pageSize=1001`)).toMatchObject({ status: 400, json: { code: 42 } });
    sandbox.setSwitches({ pageSizeOverMax: 'clamp' });
    expect((await get(`/v1/${O}/contacts?pageSize=5000`)).json.Pagination.PageSize).toBe(1000);
  });

  it('ResultWithoutFilter: rows before paging (default) or ignoring the filters (switch)', async () => {
    const path = `/v1/${O}/contacts?pageSize=2&queryFilter=${q("Name contains 'nordic'")}`;
    const before = (await get(path)).json.Pagination.ResultWithoutFilter;
    sandbox.setSwitches({ resultWithoutFilter: 'ignoringFilters' });
    expect((await get(path)).json.Pagination.ResultWithoutFilter).toBe(240);
    expect(before).toBeLessThan(240);
  });

  it('fields: exactly the requested names in the requested casing; lower-case defaults without it', async () => {
    expect(Object.keys((await get(`/v1/${O}/contacts?fields=contactGUID,NAME`)).json.Collection[0])).toEqual([
      'contactGUID',
      'NAME',
    ]);
    expect(Object.keys((await get(`/v1/${O}/contacts`)).json.Collection[0])).toEqual(['name', 'contactGuid']);
    expect(Object.keys((await get('/v1/organizations')).json[0])).toEqual(['id', 'name', 'isPro']);
    expect((await get(`/v1/${O}/contacts?fields=Name,Nope`)).json).toMatchObject({
      code: 42,
      validationErrors: { fields: "Unknown field 'Nope'." },
    });
  });

  it("fields: only each endpoint's documented names; others → 400 and recorded, or left out by switch", async () => {
    for (const [endpoint, spec] of Object.entries(BOOKS_FIELDS)) {
      const path = spec.path
        .replace('{o}', String(O))
        .replace(
          '{guid}',
          String(
            sandbox.data.organizations
              .get(O)!
              .contacts.find((c) => sandbox.data.organizations.get(O)!.notes.has(c.ContactGuid as string))!.ContactGuid,
          ),
        );
      // Every documented name is accepted (null where a row lacks it), in the requested casing.
      const answer = await get(`${path}?fields=${spec.documented.join(',')}`);
      expect(answer.status, endpoint).toBe(200);
      const rows = (Array.isArray(answer.json) ? answer.json : answer.json.Collection) as Row[];
      expect(Object.keys(rows[0]!), endpoint).toEqual([...spec.documented]);
      // Without fields: the documented defaults, in their documented casing.
      const defaults = await get(path);
      expect(
        Object.keys(((Array.isArray(defaults.json) ? defaults.json : defaults.json.Collection) as Row[])[0]!),
        endpoint,
      ).toEqual([...spec.defaults]);
      // A name the endpoint does not document: 400 code 42.
      expect(await get(`${path}?fields=${spec.documented[0]},Website`), endpoint).toMatchObject({
        status: 400,
        json: { code: 42, validationErrors: { fields: "Unknown field 'Website'." } },
      });
    }
    expect(sandbox.stats.undocumentedFields).toHaveLength(Object.keys(BOOKS_FIELDS).length);
    expect(sandbox.stats.undocumentedFields[0]).toEqual({ path: '/v1/organizations', field: 'Website' });
    sandbox.setSwitches({ unknownFields: 'ignore' });
    expect(Object.keys((await get('/v1/organizations?fields=Id,CountryKey')).json[0])).toEqual(['Id']);
    expect(sandbox.stats.undocumentedFields.at(-1)).toEqual({ path: '/v1/organizations', field: 'CountryKey' });
  });

  it('contacts: v1 leaves deleted rows out unless deletedOnly; v2 without it returns live and deleted', async () => {
    const count = async (path: string) => ((await get(path)).json.Collection as Row[]).length;
    const live = await count(`/v1/${O}/contacts?pageSize=1000`);
    const deleted = await count(`/v1/${O}/contacts?pageSize=1000&deletedOnly=true`);
    expect(deleted).toBeGreaterThan(0);
    expect(await count(`/v2/${O}/contacts?pageSize=1000`)).toBe(live + deleted);
    expect(await count(`/v2/${O}/contacts?pageSize=1000&deletedOnly=false`)).toBe(live);
    expect(await count(`/v2/${O}/contacts?pageSize=1000&deletedOnly=true`)).toBe(deleted);
  });

  it('queryFilter: eq/contains, single quotes, ; as AND; a bare term, foreign field, broken clause → 400', async () => {
    const hits = (
      await get(
        `/v1/${O}/contacts?fields=Name,IsPerson&pageSize=1000&` +
          `queryFilter=${q("Name contains 'nordic';IsPerson eq 'false'")}`,
      )
    ).json.Collection as Row[];
    expect(hits.length).toBeGreaterThan(0);
    expect(hits.every((c) => String(c.Name).toLowerCase().includes('nordic') && c.IsPerson === false)).toBe(true);
    for (const bad of ['acme', "Street eq 'x'", 'Name eq acme', "Name like 'x'", "Name eq 'x' AND Email eq 'y'"]) {
      const answer = await get(`/v1/${O}/contacts?queryFilter=${q(bad)}`);
      expect(answer, bad).toMatchObject({
        status: 400,
        json: { code: 42, message: 'Validation failed', validationErrors: { queryFilter: expect.any(String) } },
      });
    }
  });

  it('invoice filters: startDate needs endDate; drafts ignore dates; statusFilter list; sort, sortOrder', async () => {
    expect((await get(`/v1/${O}/invoices?startDate=2025-01-01`)).status).toBe(400);
    expect((await get(`/v1/${O}/invoices?endDate=2025-01-01`)).status).toBe(400);
    const future = (await get(`/v1/${O}/invoices?startDate=2031-01-01&endDate=2031-12-31&pageSize=1000&fields=Status`))
      .json.Collection as Row[];
    expect(future.length).toBeGreaterThan(0);
    expect(new Set(future.map((i) => i.Status))).toEqual(new Set(['Draft']));
    const some = (await get(`/v1/${O}/invoices?statusFilter=Paid,OverPaid&pageSize=1000&fields=Status`)).json
      .Collection as Row[];
    expect(new Set(some.map((i) => i.Status))).toEqual(new Set(['Paid', 'OverPaid']));
    expect((await get(`/v1/${O}/invoices?statusFilter=Unpaid`)).status).toBe(400);
    const asc = (
      await get(`/v1/${O}/invoices?statusFilter=Paid&sort=VoucherNumber&sortOrder=ascending&fields=Number&pageSize=5`)
    ).json.Collection as Row[];
    expect(asc.map((i) => i.Number)).toEqual(
      [...asc.map((i) => i.Number)].sort((a, b) => (a as number) - (b as number)),
    );
    expect((await get(`/v1/${O}/invoices?changesSince=2025-01-01`)).status).toBe(400);
  });
});

describe('Dinero sandbox: bare arrays, documents, reports, entries, data', () => {
  beforeEach(() => sandbox.setSwitches({ rateLimitPerMinute: 0 }));

  it('bare arrays stay bare; /files pages and wants yyyy/MM/dd dates', async () => {
    for (const path of [
      'accountingyears',
      'vatTypes',
      'accounts/deposit',
      `invoices/${BOOKS_REMINDED_INVOICE_GUID}/reminders`,
    ])
      expect(Array.isArray((await get(`/v1/${O}/${path}`)).json), path).toBe(true);
    expect(Array.isArray((await get('/v1/countries')).json)).toBe(true);
    expect((await get(`/v1/${O}/files?pageSize=3&page=1`)).json).toHaveLength(3);
    expect((await get(`/v1/${O}/files?uploadedAfter=2025/01/01`)).status).toBe(200);
    expect((await get(`/v1/${O}/files?uploadedAfter=2025-01-01`)).status).toBe(400);
  });

  it('PDFs: octet-stream on invoice/reminder/trade-offer GETs and the /pdf paths; a draft invoice → 400', async () => {
    const data = sandbox.data.organizations.get(O)!;
    const bookedInvoice = data.invoices.find((i) => i.Status === 'Paid')!;
    const draft = data.invoices.find((i) => i.Status === 'Draft')!;
    const pdf = await get(`/v1/${O}/invoices/${bookedInvoice.Guid}`, { accept: 'application/octet-stream' });
    expect(pdf.bytes.subarray(0, 5).toString()).toBe('%PDF-');
    expect(pdf.headers.get('content-disposition')).toBe(`attachment; filename="Faktura-${bookedInvoice.Number}.pdf"`);
    expect((await get(`/v1/${O}/invoices/${bookedInvoice.Guid}`)).json.Guid).toBe(bookedInvoice.Guid);
    expect((await get(`/v1/${O}/invoices/${draft.Guid}`, { accept: 'application/octet-stream' })).status).toBe(400);
    const reminder = data.reminders.get(BOOKS_REMINDED_INVOICE_GUID)![0]!;
    expect(
      (
        await get(`/v1/${O}/invoices/${BOOKS_REMINDED_INVOICE_GUID}/reminders/${reminder.Id}`, {
          accept: 'application/octet-stream',
        })
      ).bytes
        .subarray(0, 4)
        .toString(),
    ).toBe('%PDF');
    expect(
      (await get(`/v1/${O}/tradeoffers/${data.tradeOffers[0]!.Guid}`, { accept: 'application/octet-stream' })).bytes
        .subarray(0, 4)
        .toString(),
    ).toBe('%PDF');
    sandbox.setSwitches({ pdfContentDisposition: false });
    const contact = data.invoices[0]!.ContactGuid;
    expect((await get(`/v1/${O}/state-of-account/${contact}/pdf`)).headers.get('content-disposition')).toBeNull();
  });

  it('reports only under /{year}/reports/{kind}; an unknown year → 400; summary rows by default', async () => {
    const saldo = (await get(`/v1/${O}/2025/reports/saldo`)).json as Row[];
    expect(saldo.some((r) => r.AccountNumber === 3999)).toBe(true);
    expect(
      ((await get(`/v1/${O}/2025/reports/saldo?includeSummaryAccount=false`)).json as Row[]).some(
        (r) => r.AccountNumber === 3999,
      ),
    ).toBe(false);
    expect((await get(`/v1/${O}/2023/reports/saldo`)).status).toBe(400);
    expect((await get(`/v1/${O}/reports/saldo`)).status).toBe(404);
    const zero = ((await get(`/v1/${O}/2025/reports/balance?showZeroAccount=true`)).json as Row[]).length;
    expect(zero).toBeGreaterThan(((await get(`/v1/${O}/2025/reports/balance`)).json as Row[]).length);
  });

  it('entries: a range across accounting years → 400; a changes window over 31 days → 400', async () => {
    expect((await get(`/v1/${O}/entries?fromDate=2024-12-01&toDate=2025-01-31`)).status).toBe(400);
    expect((await get(`/v1/${O}/entries?fromDate=2025-01-01&toDate=2025-01-31`)).status).toBe(200);
    expect(
      (await get(`/v1/${O}/entries/changes?changesFrom=2025-01-01T00:00:00Z&changesTo=2025-02-02T00:00:00Z`)).status,
    ).toBe(400);
    expect(
      (await get(`/v1/${O}/entries/changes?changesFrom=2025-01-01T00:00:00Z&changesTo=2025-02-01T00:00:00Z`)).status,
    ).toBe(200);
  });

  it('files: 32-character FileGuids, one over 6 MB, bytes with or without Content-Length', async () => {
    const big = await get(`/v1/${O}/files/${BOOKS_BIG_FILE_GUID}`);
    expect(big.bytes.length).toBe(BOOKS_BIG_FILE_BYTES);
    expect(big.headers.get('content-length')).toBe(String(BOOKS_BIG_FILE_BYTES));
    sandbox.setSwitches({ streamFilesWithoutLength: true });
    expect((await get(`/v1/${O}/files/${BOOKS_BIG_FILE_GUID}`)).headers.get('content-length')).toBeNull();
    expect((await get(`/v1/${O}/files/NOT-A-FILE-GUID`)).status).toBe(400);
  });

  it('an unknown guid → 404 code 40 (400 by switch)', async () => {
    const guid = '00000000-0000-4000-8000-000000000000';
    expect(await get(`/v1/${O}/contacts/${guid}`)).toMatchObject({ status: 404, json: { code: 40 } });
    sandbox.setSwitches({ notFoundStatus: 400 });
    expect(await get(`/v1/${O}/products/${guid}`)).toMatchObject({ status: 400, json: { code: 40 } });
  });

  it('the demo data of §4', () => {
    const data = sandbox.data.organizations.get(O)!;
    expect(data.years).toHaveLength(2);
    expect(data.accounts.length).toBeGreaterThanOrEqual(120);
    expect(data.accounts.some((a) => a.IsHidden === true)).toBe(true);
    expect(data.accounts.some((a) => a.IsSummary === true)).toBe(true);
    expect(data.depositAccounts.some((a) => a.BankIbanNumber)).toBe(true);
    expect(data.entries.length).toBeGreaterThanOrEqual(1500);
    expect(data.contacts).toHaveLength(250);
    expect(data.contacts.some((c) => c.DeletedAt !== null)).toBe(true);
    expect(data.invoices).toHaveLength(300);
    expect(new Set(data.invoices.map((i) => i.Status))).toEqual(
      new Set(['Draft', 'Booked', 'Paid', 'OverPaid', 'Overdue']),
    );
    expect(data.reminders.get(BOOKS_REMINDED_INVOICE_GUID)).toHaveLength(3);
    expect(data.creditNotes.every((c) => data.invoices.some((i) => i.Guid === c.CreditNoteFor))).toBe(true);
    expect(new Set(data.tradeOffers.map((t) => t.Status)).size).toBeGreaterThanOrEqual(5);
    expect(data.purchaseVouchers.every((v) => /^[a-z0-9]{32}$/.test(String(v.FileGuid)))).toBe(true);
    expect(data.manualVouchers.length).toBeGreaterThan(0);
    expect(data.files.every((f) => /^[a-z0-9]{32}$/.test(String(f.FileGuid)))).toBe(true);
    expect(data.vatTypes.every((v) => (v.VatRate as number) >= 0 && (v.VatRate as number) < 1)).toBe(true);
    // Every voucher is balanced: its entries sum to zero.
    const byVoucher = new Map<string, number>();
    for (const e of data.entries)
      byVoucher.set(String(e.VoucherGuid), (byVoucher.get(String(e.VoucherGuid)) ?? 0) + (e.Amount as number));
    expect([...byVoucher.values()].every((sum) => Math.abs(sum) < 0.01)).toBe(true);
  });
});
