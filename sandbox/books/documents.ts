// The Dinero sandbox's documents and calculations: PDF and file downloads, state of account,
// reports, payments, mailouts, reminders and the two calculators (POST …/fetch, persist nothing).
import { sendJson } from '../http-kit.ts';
import { addDays, booksPdf, type OrganizationData, type Row, summaryRange } from './data.ts';
import { boolParam, byGuid, changesSince, DATE } from './query.ts';
import { type Req, validation } from './state.ts';

const SMALL_FILE_CHUNK = 64 * 1024;

export function sendPdf(r: Req, label: string, fileName: string): void {
  const bytes = booksPdf(label);
  r.res.writeHead(200, {
    'content-type': 'application/octet-stream',
    'content-length': bytes.length,
    ...(r.s.switches.pdfContentDisposition ? { 'content-disposition': `attachment; filename="${fileName}"` } : {}),
  });
  r.res.end(bytes);
}

export function sendFile(r: Req, file: Row): void {
  const size = file.__Bytes as number;
  const type =
    file.Extension === 'pdf'
      ? 'application/pdf'
      : file.Extension === 'jpg'
        ? 'image/jpeg'
        : file.Extension === 'png'
          ? 'image/png'
          : 'application/octet-stream';
  const head = file.Extension === 'pdf' ? Buffer.from('%PDF-1.4\n') : Buffer.from([0x89, 0x50, 0x4e, 0x47]);
  r.res.writeHead(200, {
    'content-type': type,
    ...(r.s.switches.streamFilesWithoutLength ? {} : { 'content-length': size }),
  });
  let sent = 0;
  const chunk = Buffer.alloc(SMALL_FILE_CHUNK, 0x20);
  const pump = (): void => {
    while (sent < size) {
      const piece =
        sent === 0
          ? Buffer.concat([head, chunk]).subarray(0, Math.min(size, SMALL_FILE_CHUNK))
          : chunk.subarray(0, Math.min(SMALL_FILE_CHUNK, size - sent));
      sent += piece.length;
      if (!r.res.write(piece)) {
        r.res.once('drain', pump);
        return;
      }
    }
    r.res.end();
  };
  r.res.on('close', () => {
    sent = size;
  });
  pump();
}

/** A state of account with running balance, from the contact's booked sales documents and payments. */
export function stateOfAccount(org: OrganizationData, contact: Row, q: URLSearchParams): Row {
  const from = q.get('from');
  const to = q.get('to');
  for (const [name, value] of [
    ['from', from],
    ['to', to],
  ] as const)
    if (value !== null && Number.isNaN(Date.parse(value))) throw validation(name, `'${value}' is not a date-time.`);
  const hideClosed = boolParam(q, 'hideClosed', false);
  const guid = contact.ContactGuid;
  const docs = [...org.invoices, ...org.creditNotes].filter(
    (d) => d.ContactGuid === guid && d.Status !== 'Draft' && d.DeletedAt === null,
  );
  const items: Row[] = [];
  for (const d of docs) {
    const paid = (org.payments.get(d.Guid as string) ?? []).reduce((s, p) => s + (p.Amount as number), 0);
    const open = Math.abs((d.TotalInclVat as number) - paid) > 0.005;
    items.push({
      RelatedVoucherGuid: d.Guid,
      RelatedVoucherNumber: d.Number,
      Date: d.Date,
      DecayDate: d.PaymentDate,
      Description: d.Description,
      Type: d.Type,
      Amount: d.TotalInclVat,
      Status: open ? 'open' : 'closed',
      Currency: d.Currency,
    });
    for (const p of org.payments.get(d.Guid as string) ?? [])
      items.push({
        RelatedVoucherGuid: d.Guid,
        RelatedVoucherNumber: d.Number,
        Date: p.PaymentDate,
        DecayDate: null,
        Description: p.Description,
        Type: 'Payment',
        Amount: -(p.Amount as number),
        Status: open ? 'open' : 'closed',
        Currency: p.Currency,
      });
  }
  const inRange = items
    .filter(
      (e) =>
        (from === null || String(e.Date) >= from.slice(0, 10)) &&
        (to === null || String(e.Date) <= to.slice(0, 10)) &&
        (!hideClosed || e.Status === 'open'),
    )
    .sort((a, b) => String(a.Date).localeCompare(String(b.Date)));
  let balance = 0;
  const entries = inRange.map((e) => {
    balance = Math.round((balance + (e.Amount as number)) * 100) / 100;
    return { ...e, Balance: balance } as Row;
  });
  const income = entries.filter((e) => (e.Amount as number) > 0).reduce((s, e) => s + (e.Amount as number), 0);
  const expenses = entries.filter((e) => (e.Amount as number) < 0).reduce((s, e) => s + (e.Amount as number), 0);
  return {
    ContactGuid: guid,
    Income: Math.round(income * 100) / 100,
    Expenses: Math.round(expenses * 100) / 100,
    Entries: entries,
  };
}

export function reportRows(org: OrganizationData, year: string, kind: string, q: URLSearchParams): Row[] {
  const showZero = boolParam(q, 'showZeroAccount', false);
  const includeSummary = boolParam(q, 'includeSummaryAccount', true);
  if (kind !== 'primo') boolParam(q, 'includeLedgerEntries', false);
  boolParam(q, 'showAccountNo', true);
  boolParam(q, 'showVatType', false);
  const sums = new Map<number, number>();
  for (const e of org.entries) {
    if (!String(e.Date).startsWith(`${year}-`)) continue;
    if (kind === 'primo' && e.Type !== 'Primo') continue;
    sums.set(e.AccountNumber as number, (sums.get(e.AccountNumber as number) ?? 0) + (e.Amount as number));
  }
  const inKind = (n: number) => (kind === 'result' ? n < 5000 : kind === 'balance' ? n >= 5000 : true);
  const rows: Row[] = [];
  for (const account of org.accounts) {
    const n = account.AccountNumber as number;
    if (!inKind(n)) continue;
    const range = summaryRange(account);
    let amount: number;
    if (range) {
      if (!includeSummary) continue;
      amount = [...sums].filter(([k]) => k >= range[0] && k <= range[1]).reduce((s, [, v]) => s + v, 0);
    } else amount = sums.get(n) ?? 0;
    amount = Math.round(amount * 100) / 100;
    if (amount === 0 && !showZero) continue;
    rows.push({ AccountName: account.Name, AccountNumber: n, Amount: amount });
  }
  return rows;
}

export function yearOf(org: OrganizationData, date: string): string | undefined {
  return org.years.find((y) => date >= String(y.FromDate) && date <= String(y.ToDate))?.Name as string | undefined;
}

export function payments(r: Req, doc: Row, org: OrganizationData): void {
  const list = org.payments.get(doc.Guid as string) ?? [];
  const paid = Math.round(list.reduce((s, p) => s + (p.Amount as number), 0) * 100) / 100;
  const total = doc.TotalInclVat as number;
  const fees = (org.reminders.get(doc.Guid as string) ?? []).reduce(
    (m, x) => Math.max(m, x.AccumulatedFeesAndInterestAmount as number),
    0,
  );
  sendJson(r.res, 200, {
    Payments: list,
    RemainingAmount: Math.round((total + fees - paid) * 100) / 100,
    PaidAmount: paid,
    InvoiceTotalIncludingReminderExpenses: Math.round((total + fees) * 100) / 100,
    RemainderAsFeeAvailable: fees > 0 && paid < total + fees,
  });
}

export function mailoutList(r: Req, list: readonly Row[], smsParam: boolean): void {
  const since = changesSince(r.query);
  // The credit-note endpoint has no `includeSms`: it is ignored there, like any unknown parameter.
  const includeSms = smsParam ? boolParam(r.query, 'includeSms', true) : true;
  sendJson(
    r.res,
    200,
    list.filter((m) => (includeSms || m.IsSmsMessage !== true) && (since === undefined || String(m.Date) >= since)),
  );
}

export function nextReminder(invoice: Row, list: readonly Row[], date: string, flags: Record<string, boolean>): Row {
  const paid = -((list[0]?.PaidAmount as number | undefined) ?? 0);
  const n = list.length + 1;
  const fee = flags.WithFee ? 100 : 0;
  const interest = flags.WithInterestFee ? Math.round((invoice.TotalInclVat as number) * 0.008 * n * 100) / 100 : 0;
  const compensation = flags.WithCompensationFee ? 310 : 0;
  const accumulated =
    Math.round(
      ((list.at(-1)?.AccumulatedFeesAndInterestAmount as number | undefined) ?? 0) * 100 +
        (fee + interest + compensation) * 100,
    ) / 100;
  return {
    Id: 0,
    IsDraft: true,
    Number: n,
    Date: date,
    Title: `${n}. rykker for faktura ${invoice.Number}`,
    Description: 'Vi har endnu ikke modtaget betaling for nedenstående faktura.',
    DebtCollectionNotificationText: flags.WithDebtCollectionWarning
      ? 'Betales beløbet ikke inden 10 dage, overgår sagen til inkasso.'
      : null,
    FeeAmount: fee,
    InterestAmount: interest,
    CompensationFeeAmount: compensation,
    AccumulatedFeesAndInterestAmount: accumulated,
    PaidAmount: -paid,
    ReminderTotalInclVatAmount: Math.round(((invoice.TotalInclVat as number) - paid + accumulated) * 100) / 100,
    ...flags,
  };
}

export function previewReminder(r: Req, invoice: Row, list: readonly Row[]): void {
  r.s.stats.calculations++;
  const body = r.body;
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw validation('body', 'A JSON body is required.');
  const b = body as Row;
  if (typeof b.Date !== 'string' || !DATE.test(b.Date)) throw validation('Date', 'Date is required (YYYY-MM-DD).');
  const flags: Record<string, boolean> = {};
  for (const k of ['WithFee', 'WithInterestFee', 'WithCompensationFee', 'WithDebtCollectionWarning']) {
    if (typeof b[k] !== 'boolean') throw validation(k, `${k} is required (boolean).`);
    flags[k] = b[k] as boolean;
  }
  if (invoice.Status === 'Draft' || invoice.Status === 'Paid' || invoice.Status === 'OverPaid')
    throw validation('invoice', 'Reminders can only be made for booked, unpaid invoices.');
  if (list.length >= 3) throw validation('invoice', 'An invoice can have at most 3 reminders.');
  sendJson(r.res, 200, nextReminder(invoice, list, b.Date, flags));
}

export function calculateInvoice(r: Req, org: OrganizationData): void {
  r.s.stats.calculations++;
  const body = r.body;
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw validation('body', 'A JSON body is required.');
  const b = body as Row;
  const lines = b.ProductLines;
  if (!Array.isArray(lines) || lines.length === 0)
    throw validation('ProductLines', 'At least one product line is required.');
  const inclVat = b.ShowLinesInclVat === true;
  const date = typeof b.Date === 'string' ? b.Date : r.s.switches.today;
  if (!DATE.test(date)) throw validation('Date', `'${date}' is not a date (YYYY-MM-DD).`);
  if (b.ContactGuid !== undefined && b.ContactGuid !== null)
    byGuid(r.s, org.contacts, String(b.ContactGuid), 'The contact', 'ContactGuid');
  const out: Row[] = [];
  let exclTotal = 0;
  let vatTotal = 0;
  for (const [i, raw] of lines.entries()) {
    if (typeof raw !== 'object' || raw === null)
      throw validation(`ProductLines[${i}]`, 'A product line must be an object.');
    const line = raw as Row;
    if (line.LineType === 'Text') {
      out.push({ ...line, TotalAmount: 0, TotalAmountInclVat: 0 });
      continue;
    }
    for (const k of ['Quantity', 'AccountNumber', 'BaseAmountValue'])
      if (typeof line[k] !== 'number') throw validation(`ProductLines[${i}].${k}`, `${k} is required (number).`);
    if (line.ProductGuid === undefined && (typeof line.Description !== 'string' || line.Description === ''))
      throw validation(`ProductLines[${i}].Description`, 'Description is required without a product.');
    const account = org.accounts.find((x) => x.AccountNumber === line.AccountNumber);
    if (account === undefined)
      throw validation(`ProductLines[${i}].AccountNumber`, `The account ${String(line.AccountNumber)} does not exist.`);
    const rate = org.vatTypes.find((v) => v.VatCode === account.VatCode)?.VatRate as number | undefined;
    const discount = typeof line.Discount === 'number' ? line.Discount : 0;
    const gross = (line.Quantity as number) * (line.BaseAmountValue as number) * (1 - discount / 100);
    const excl = Math.round((inclVat ? gross / (1 + (rate ?? 0)) : gross) * 100) / 100;
    const vat = Math.round(excl * (rate ?? 0) * 100) / 100;
    exclTotal += excl;
    vatTotal += vat;
    out.push({
      ...line,
      Discount: discount,
      AccountName: account.Name,
      TotalAmount: excl,
      TotalAmountInclVat: Math.round((excl + vat) * 100) / 100,
    });
  }
  exclTotal = Math.round(exclTotal * 100) / 100;
  vatTotal = Math.round(vatTotal * 100) / 100;
  const days = typeof b.PaymentConditionNumberOfDays === 'number' ? b.PaymentConditionNumberOfDays : 8;
  sendJson(r.res, 200, {
    ContactGuid: b.ContactGuid ?? null,
    Date: date,
    PaymentDate: addDays(date, days),
    Currency: typeof b.Currency === 'string' ? b.Currency : 'DKK',
    Language: typeof b.Language === 'string' ? b.Language : 'da-DK',
    PaymentConditionType: typeof b.PaymentConditionType === 'string' ? b.PaymentConditionType : 'Netto',
    PaymentConditionNumberOfDays: days,
    ShowLinesInclVat: inclVat,
    TotalExclVat: exclTotal,
    TotalVat: vatTotal,
    TotalInclVat: Math.round((exclTotal + vatTotal) * 100) / 100,
    TotalLines: [
      { Type: 'Subtotal', TotalAmount: exclTotal, Position: 0, Label: 'Subtotal' },
      { Type: 'Vat', TotalAmount: vatTotal, Position: 1, Label: 'Moms' },
      { Type: 'Total', TotalAmount: Math.round((exclTotal + vatTotal) * 100) / 100, Position: 2, Label: 'Total' },
    ],
    ProductLines: out,
  });
}
