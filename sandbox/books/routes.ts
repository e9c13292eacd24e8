// The Dinero sandbox's organisation routes: below `/v1/{o}` (and `/v2/{o}` for invoice payments and
// contacts), route tables of decoded path segments, matched in order (`findSegmentRoute`). The order
// is Dinero's: a guid in the path is checked (400 code 42, then 404 code 40) before a route below it
// is found missing, which the `…/:guid/*` entries keep; what no entry matches is 404 code 40.
import { findSegmentRoute, type Route, sendJson } from '../http-kit.ts';
import type { OrganizationData, Row } from './data.ts';
import {
  calculateInvoice,
  mailoutList,
  nextReminder,
  payments,
  previewReminder,
  reportRows,
  sendFile,
  sendPdf,
  stateOfAccount,
  yearOf,
} from './documents.ts';
import {
  boolParam,
  byGuid,
  CHANGES_SINCE,
  changesSince,
  contactList,
  DATE,
  envelope,
  FILE_GUID,
  GUID,
  lifecycle,
  matches,
  PRODUCT_FILTER_FIELDS,
  paging,
  parseQueryFilter,
  project,
  publicRow,
  salesList,
  TRADE_OFFER_FILTER_FIELDS,
} from './query.ts';
import { DineroError, notFound, type Req, validation } from './state.ts';
import { BOOKS_FILES_DEFAULT_PAGE_SIZE } from './switches.ts';

/** A handler of an organisation route: the request, the organisation, the template's `:name` segments. */
type OrgHandler = (r: Req, org: OrganizationData, params: readonly string[]) => void;

/** A guid checked (and looked up) before the route below it is found missing. */
const guidThenMissing =
  (rows: (org: OrganizationData) => readonly Row[], what: string, key?: string): OrgHandler =>
  (r, org, [guid]) => {
    byGuid(r.s, rows(org), guid!, what, key);
    throw notFound(r.s, 'The resource');
  };

const missing: OrgHandler = (r) => {
  throw notFound(r.s, 'The resource');
};

function accounts(r: Req, org: OrganizationData, kind: 'entry' | 'deposit'): void {
  const category = r.query.get('categoryFilter');
  const rows =
    kind === 'entry'
      ? org.accounts.filter(
          (x) =>
            category === null ||
            String(x.Category).toLowerCase() === category.toLowerCase() ||
            String(x.CategoryName).toLowerCase() === category.toLowerCase(),
        )
      : org.depositAccounts;
  sendJson(
    r.res,
    200,
    project(
      r.s,
      r.path,
      rows.map(publicRow),
      r.query.get('fields') ?? undefined,
      kind === 'entry' ? 'entryAccounts' : 'depositAccounts',
    ),
  );
}

const report: OrgHandler = (r, org, [year, kind]) => {
  if (!org.years.some((y) => y.Name === year))
    throw validation('accountingYear', `The accounting year '${year}' does not exist.`);
  sendJson(r.res, 200, reportRows(org, year!, kind!, r.query));
};

function entries(r: Req, org: OrganizationData): void {
  const q = r.query;
  const from = q.get('fromDate');
  const to = q.get('toDate');
  if (from === null || to === null || !DATE.test(from) || !DATE.test(to))
    throw validation(
      from === null || !DATE.test(from) ? 'fromDate' : 'toDate',
      'fromDate and toDate are required dates (YYYY-MM-DD).',
    );
  if (from > to) throw validation('toDate', 'toDate must not be before fromDate.');
  const y1 = yearOf(org, from);
  if (y1 === undefined || y1 !== yearOf(org, to))
    throw validation('toDate', 'fromDate and toDate must be within the same accounting year.');
  const primo = boolParam(q, 'includePrimo', true);
  sendJson(
    r.res,
    200,
    org.entries
      .filter((x) => String(x.Date) >= from && String(x.Date) <= to && (primo || x.Type !== 'Primo'))
      .map(publicRow),
  );
}

function entryChanges(r: Req, org: OrganizationData): void {
  const q = r.query;
  const from = q.get('changesFrom');
  const to = q.get('changesTo');
  if (from === null || to === null || !CHANGES_SINCE.test(from) || !CHANGES_SINCE.test(to))
    throw validation('changesFrom', 'changesFrom and changesTo are required UTC timestamps (YYYY-MM-DDTHH:mm:ssZ).');
  if (Date.parse(to) < Date.parse(from)) throw validation('changesTo', 'changesTo must not be before changesFrom.');
  if (Date.parse(to) - Date.parse(from) > 31 * 86_400_000)
    throw validation('changesTo', 'The interval between changesFrom and changesTo must be 31 days or less.');
  const primo = boolParam(q, 'includePrimo', true);
  sendJson(
    r.res,
    200,
    org.entries
      .filter((x) => String(x.__BookedAt) >= from && String(x.__BookedAt) <= to && (primo || x.Type !== 'Primo'))
      .map(publicRow),
  );
}

const contactOf = (r: Req, org: OrganizationData, guid: string | undefined): Row =>
  byGuid(r.s, org.contacts, guid!, 'The contact', 'ContactGuid');

function contactNotes(r: Req, org: OrganizationData, [guid]: readonly string[]): void {
  const contact = contactOf(r, org, guid);
  const all = org.notes.get(contact.ContactGuid as string) ?? [];
  const rows = lifecycle(all, r.query).sort((x, y) => String(x.NoteDate).localeCompare(String(y.NoteDate)));
  envelope(r, all, rows, 'contactNotes');
}

function stateOfAccountAnswer(r: Req, org: OrganizationData, [guid]: readonly string[], pdf: boolean): void {
  const contact = contactOf(r, org, guid);
  const body = stateOfAccount(org, contact, r.query);
  if (pdf)
    sendPdf(r, `State of account ${contact.Name}`, `kontoudtog-${String(contact.Name).replace(/[^\w]+/g, '-')}.pdf`);
  else sendJson(r.res, 200, body);
}

const invoiceOf = (r: Req, org: OrganizationData, guid: string | undefined): Row =>
  byGuid(r.s, org.invoices, guid!, 'The invoice');
const remindersOf = (org: OrganizationData, invoice: Row): readonly Row[] =>
  org.reminders.get(invoice.Guid as string) ?? [];

function invoice(r: Req, org: OrganizationData, [guid]: readonly string[]): void {
  const row = invoiceOf(r, org, guid);
  if (r.wantsBytes) {
    if (row.Status === 'Draft') throw validation('invoice', 'A draft invoice has no PDF: book it first.');
    sendPdf(r, `Invoice ${row.Number}`, `Faktura-${row.Number}.pdf`);
    return;
  }
  sendJson(r.res, 200, publicRow(row));
}

function reminders(r: Req, org: OrganizationData, [guid]: readonly string[]): void {
  const since = changesSince(r.query);
  sendJson(
    r.res,
    200,
    remindersOf(org, invoiceOf(r, org, guid)).filter((x) => since === undefined || String(x.UpdatedAt) >= since),
  );
}

function upcomingReminder(r: Req, org: OrganizationData, [guid]: readonly string[]): void {
  const row = invoiceOf(r, org, guid);
  const list = remindersOf(org, row);
  sendJson(
    r.res,
    200,
    nextReminder(row, list, r.s.switches.today, {
      WithFee: true,
      WithInterestFee: true,
      WithCompensationFee: list.length === 0,
      WithDebtCollectionWarning: list.length >= 2,
    }),
  );
}

function reminder(r: Req, org: OrganizationData, [guid, id]: readonly string[]): void {
  const row = invoiceOf(r, org, guid);
  const list = remindersOf(org, row);
  if (!/^\d+$/.test(id!)) throw validation('id', `'${id}' is not a reminder id.`);
  const found = list.find((x) => x.Id === Number(id));
  if (found === undefined) throw notFound(r.s, 'The reminder');
  if (r.wantsBytes) {
    sendPdf(r, `Reminder ${found.Number} of invoice ${row.Number}`, `Rykker-${found.Number}-Faktura-${row.Number}.pdf`);
    return;
  }
  sendJson(r.res, 200, found);
}

const creditNoteOf = (r: Req, org: OrganizationData, guid: string | undefined): Row =>
  byGuid(r.s, org.creditNotes, guid!, 'The credit note');

function creditNotePdf(r: Req, org: OrganizationData, [guid]: readonly string[]): void {
  const note = creditNoteOf(r, org, guid);
  if (note.Status === 'Draft') throw validation('creditNote', 'A draft credit note has no PDF: book it first.');
  sendPdf(r, `Credit note ${note.Number}`, `Kreditnota-${note.Number}.pdf`);
}

function tradeOfferList(r: Req, org: OrganizationData): void {
  const q = r.query;
  const sort = q.get('sort');
  const sortOrder = q.get('sortOrder') ?? 'descending';
  if (sort !== null && !['TradeOfferNumber', 'TradeOfferDate', 'Status', 'ContactName'].includes(sort))
    throw validation('sort', `'${sort}' is not a sort field.`);
  if (!['ascending', 'descending'].includes(sortOrder))
    throw validation('sortOrder', `'${sortOrder}' must be ascending or descending.`);
  const clauses = parseQueryFilter(q.get('queryFilter') ?? undefined, TRADE_OFFER_FILTER_FIELDS);
  const free = q.get('freeTextSearch')?.toLowerCase();
  const rows = lifecycle(org.tradeOffers, q).filter(
    (x) =>
      matches(x, clauses) &&
      (free === undefined ||
        [x.Number, x.ContactName, x.Description].some((v) => v !== null && String(v).toLowerCase().includes(free))),
  );
  const keyOf = (x: Row): string | number =>
    sort === 'TradeOfferNumber'
      ? (x.Number as number)
      : sort === 'Status'
        ? String(x.Status)
        : sort === 'ContactName'
          ? String(x.ContactName)
          : String(x.Date);
  rows.sort((x, y) => {
    const k1 = keyOf(x);
    const k2 = keyOf(y);
    const cmp = k1 < k2 ? -1 : k1 > k2 ? 1 : 0;
    return sortOrder === 'ascending' ? cmp : -cmp;
  });
  envelope(
    r,
    org.tradeOffers.filter((x) => x.DeletedAt === null),
    rows,
    'tradeOffers',
  );
}

const tradeOfferOf = (r: Req, org: OrganizationData, guid: string | undefined): Row =>
  byGuid(r.s, org.tradeOffers, guid!, 'The trade offer');

function tradeOffer(r: Req, org: OrganizationData, [guid]: readonly string[]): void {
  const offer = tradeOfferOf(r, org, guid);
  if (r.wantsBytes) sendPdf(r, `Trade offer ${offer.Number}`, `Tilbud-${offer.Number}.pdf`);
  else sendJson(r.res, 200, publicRow(offer));
}

function productList(r: Req, org: OrganizationData): void {
  const q = r.query;
  const clauses = parseQueryFilter(q.get('queryFilter') ?? undefined, PRODUCT_FILTER_FIELDS);
  const free = q.get('freeTextSearch')?.toLowerCase();
  const rows = lifecycle(org.products, q)
    .filter(
      (x) =>
        matches(x, clauses) &&
        (free === undefined || [x.Name, x.ProductNumber].some((v) => String(v).toLowerCase().includes(free))),
    )
    .sort((x, y) => String(y.UpdatedAt).localeCompare(String(x.UpdatedAt)));
  envelope(
    r,
    org.products.filter((x) => x.DeletedAt === null),
    rows.map((x) => ({ ...x, Comment: undefined })),
    'products',
  );
}

function fileList(r: Req, org: OrganizationData): void {
  const q = r.query;
  const { page, pageSize } = paging(r.s, q, BOOKS_FILES_DEFAULT_PAGE_SIZE);
  const extensions = q
    .get('extensions')
    ?.toLowerCase()
    .split(',')
    .map((x) => x.trim().replace(/^\./, ''));
  const bound = (name: string): string | undefined => {
    const v = q.get(name);
    if (v === null) return undefined;
    if (!/^\d{4}\/\d{2}\/\d{2}$/.test(v)) throw validation(name, `'${v}' must be written yyyy/MM/dd.`);
    return v.replace(/\//g, '-');
  };
  const after = bound('uploadedAfter');
  const before = bound('uploadedBefore');
  const status = q.get('fileStatus') ?? 'All';
  if (!['All', 'Used', 'Unused'].includes(status))
    throw validation('fileStatus', `'${status}' must be All, Used or Unused.`);
  const rows = org.files
    .filter(
      (f) =>
        (extensions === undefined || extensions.includes(String(f.Extension))) &&
        (after === undefined || String(f.UploadedAt).slice(0, 10) > after) &&
        (before === undefined || String(f.UploadedAt).slice(0, 10) < before) &&
        (status === 'All' || (status === 'Used') === (f.Linked as Row[]).length > 0),
    )
    .sort((x, y) => String(y.UploadedAt).localeCompare(String(x.UploadedAt)));
  sendJson(r.res, 200, rows.slice(page * pageSize, page * pageSize + pageSize).map(publicRow));
}

function file(r: Req, org: OrganizationData, [fileGuid]: readonly string[]): void {
  if (!FILE_GUID.test(fileGuid!)) throw validation('fileGuid', `'${fileGuid}' is not a file guid.`);
  const found = org.files.find((f) => f.FileGuid === fileGuid);
  if (found === undefined) throw notFound(r.s, 'The file');
  sendFile(r, found);
}

function attachments(r: Req, org: OrganizationData, [guid]: readonly string[]): void {
  if (!GUID.test(guid!)) throw validation('documentGuid', `'${guid}' is not a valid guid.`);
  const known = [...org.invoices, ...org.creditNotes, ...org.tradeOffers].some(
    (x) => String(x.Guid).toLowerCase() === guid!.toLowerCase(),
  );
  if (!known) throw notFound(r.s, 'The sales document');
  sendJson(r.res, 200, org.attachments.get(guid!.toLowerCase()) ?? org.attachments.get(guid!) ?? []);
}

const GET = 'GET';
const POST = 'POST';

/** Below `/v2/{o}`. */
const V2_ROUTES: readonly Route<OrgHandler>[] = [
  {
    method: GET,
    path: '/invoices/:guid/payments',
    handle: (r, org, [guid]) => payments(r, invoiceOf(r, org, guid), org),
  },
  { method: GET, path: '/contacts', handle: (r, org) => contactList(r, org, 'v2') },
];

/** Below `/v1/{o}`, in Dinero's order (see the file header). */
const V1_ROUTES: readonly Route<OrgHandler>[] = [
  { method: GET, path: '/accountingyears', handle: (r, org) => sendJson(r.res, 200, org.years) },
  { method: GET, path: '/vatTypes', handle: (r, org) => sendJson(r.res, 200, org.vatTypes) },
  { method: GET, path: '/sales/settings', handle: (r, org) => sendJson(r.res, 200, org.salesSettings) },
  { method: GET, path: '/accounts/entry', handle: (r, org) => accounts(r, org, 'entry') },
  { method: GET, path: '/accounts/deposit', handle: (r, org) => accounts(r, org, 'deposit') },
  ...['saldo', 'result', 'balance', 'primo'].map((kind) => ({
    method: GET,
    path: `/:year/reports/${kind}`,
    handle: (r: Req, org: OrganizationData, [year]: readonly string[]) => report(r, org, [year!, kind]),
  })),
  { method: GET, path: '/entries', handle: entries },
  { method: GET, path: '/entries/changes', handle: entryChanges },
  { method: GET, path: '/contacts', handle: (r, org) => contactList(r, org, 'v1') },
  {
    method: GET,
    path: '/contacts/:guid',
    handle: (r, org, [guid]) => sendJson(r.res, 200, publicRow(contactOf(r, org, guid))),
  },
  { method: GET, path: '/contacts/:guid/notes', handle: contactNotes },
  {
    method: GET,
    path: '/contacts/:guid/*',
    handle: guidThenMissing((org) => org.contacts, 'The contact', 'ContactGuid'),
  },
  {
    method: GET,
    path: '/state-of-account/:guid',
    handle: (r, org, params) => stateOfAccountAnswer(r, org, params, false),
  },
  {
    method: GET,
    path: '/state-of-account/:guid/pdf',
    handle: (r, org, params) => stateOfAccountAnswer(r, org, params, true),
  },
  { method: GET, path: '/invoices', handle: (r, org) => salesList(r, org.invoices, 'invoices') },
  { method: POST, path: '/invoices/fetch', handle: (r, org) => calculateInvoice(r, org) },
  { path: '/invoices/fetch/*', handle: missing },
  { method: GET, path: '/invoices/:guid', handle: invoice },
  {
    method: GET,
    path: '/invoices/:guid/mailouts',
    handle: (r, org, [guid]) => mailoutList(r, org.mailouts.get(invoiceOf(r, org, guid).Guid as string) ?? [], true),
  },
  { method: GET, path: '/invoices/:guid/reminders', handle: reminders },
  { method: GET, path: '/invoices/:guid/reminders/next', handle: upcomingReminder },
  {
    method: POST,
    path: '/invoices/:guid/reminders/fetch',
    handle: (r, org, [guid]) => {
      const row = invoiceOf(r, org, guid);
      previewReminder(r, row, remindersOf(org, row));
    },
  },
  {
    method: GET,
    path: '/invoices/:guid/reminders/fetch',
    handle: guidThenMissing((org) => org.invoices, 'The invoice'),
  },
  { method: GET, path: '/invoices/:guid/reminders/:id', handle: reminder },
  {
    method: GET,
    path: '/invoices/:guid/payments',
    handle: (r, org, [guid]) => {
      invoiceOf(r, org, guid);
      throw new DineroError(
        480,
        480,
        'This endpoint is deprecated: use /v2/{organizationId}/invoices/{guid}/payments.',
      );
    },
  },
  { path: '/invoices/:guid/*', handle: guidThenMissing((org) => org.invoices, 'The invoice') },
  { method: GET, path: '/sales', handle: (r, org) => salesList(r, [...org.invoices, ...org.creditNotes], 'sales') },
  { method: GET, path: '/sales/creditnotes', handle: (r, org) => salesList(r, org.creditNotes, 'creditNotes') },
  {
    method: GET,
    path: '/sales/creditnotes/:guid',
    handle: (r, org, [guid]) => sendJson(r.res, 200, publicRow(creditNoteOf(r, org, guid))),
  },
  { method: GET, path: '/sales/creditnotes/:guid/pdf', handle: creditNotePdf },
  {
    method: GET,
    path: '/sales/creditnotes/:guid/payments',
    handle: (r, org, [guid]) => payments(r, creditNoteOf(r, org, guid), org),
  },
  {
    method: GET,
    path: '/sales/creditnotes/:guid/mailouts',
    handle: (r, org, [guid]) =>
      mailoutList(r, org.mailouts.get(creditNoteOf(r, org, guid).Guid as string) ?? [], false),
  },
  {
    method: GET,
    path: '/sales/creditnotes/:guid/*',
    handle: guidThenMissing((org) => org.creditNotes, 'The credit note'),
  },
  { method: GET, path: '/tradeoffers', handle: tradeOfferList },
  { method: GET, path: '/tradeoffers/:guid', handle: tradeOffer },
  {
    method: GET,
    path: '/tradeoffers/:guid/mailouts',
    handle: (r, org, [guid]) => mailoutList(r, org.mailouts.get(tradeOfferOf(r, org, guid).Guid as string) ?? [], true),
  },
  { method: GET, path: '/tradeoffers/:guid/*', handle: guidThenMissing((org) => org.tradeOffers, 'The trade offer') },
  {
    method: GET,
    path: '/vouchers/purchase/:guid',
    handle: (r, org, [guid]) =>
      sendJson(r.res, 200, publicRow(byGuid(r.s, org.purchaseVouchers, guid!, 'The purchase voucher'))),
  },
  {
    method: GET,
    path: '/vouchers/purchase/fileguid/:fileGuid',
    handle: (r, org, [fileGuid]) => {
      if (!FILE_GUID.test(fileGuid!)) throw validation('fileGuid', `'${fileGuid}' is not a file guid.`);
      sendJson(
        r.res,
        200,
        org.purchaseVouchers.filter((x) => x.FileGuid === fileGuid).map((x) => x.Guid),
      );
    },
  },
  {
    method: GET,
    path: '/vouchers/purchase/creditnotes/:guid',
    handle: (r, org, [guid]) =>
      sendJson(r.res, 200, publicRow(byGuid(r.s, org.purchaseCreditNotes, guid!, 'The purchase credit note'))),
  },
  {
    method: GET,
    path: '/vouchers/manuel/:guid',
    handle: (r, org, [guid]) =>
      sendJson(r.res, 200, publicRow(byGuid(r.s, org.manualVouchers, guid!, 'The manual voucher'))),
  },
  {
    method: GET,
    path: '/purchase-vouchers/:guid/payments',
    handle: (r, org, [guid]) => {
      const voucher = byGuid(r.s, org.purchaseVouchers, guid!, 'The purchase voucher');
      sendJson(r.res, 200, org.purchasePayments.get(voucher.Guid as string) ?? []);
    },
  },
  { method: GET, path: '/products', handle: productList },
  {
    method: GET,
    path: '/products/:guid',
    handle: (r, org, [guid]) =>
      sendJson(r.res, 200, publicRow(byGuid(r.s, org.products, guid!, 'The product', 'ProductGuid'))),
  },
  { method: GET, path: '/files', handle: fileList },
  { method: GET, path: '/files/:fileGuid', handle: file },
  { method: GET, path: '/attachments/:guid', handle: attachments },
];

/** The organisation-scoped routes below `/v1/{o}` (`/v2/{o}` for invoice payments and contacts). */
export function serveOrganization(r: Req, version: string, org: OrganizationData, rest: readonly string[]): void {
  const routes = version === 'v2' ? V2_ROUTES : version === 'v1' ? V1_ROUTES : [];
  const route = findSegmentRoute(routes, r.method, rest);
  if (route === undefined) throw notFound(r.s, 'The resource');
  route.handle(r, org, route.params);
}
