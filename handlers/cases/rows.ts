// Hours and sales invoices of one case in a period, read in pages of 200 and accumulated up to a
// row cap. Hours are filtered on the registration's start time, invoices on the invoice date; the
// upper bound is the next local midnight, exclusive, and is also applied locally (the upstream's
// `to` may be inclusive).
import type { CasesCallContext } from './graphql-client.ts';
import type { Period } from './period.ts';
import { hoursCaseFilter, type SchemaMap, withKnownSpelling, withLearnedShapes } from './schema-map.ts';
import { accumulate, enumLiteral } from './shared.ts';

export interface HourRow {
  readonly costPrice: number | null;
  readonly startTime: number | null;
}

export interface InvoiceRow {
  readonly id: number | string;
  readonly amount: number | null;
}

const inPeriod = (t: unknown, p: Period) => typeof t === 'number' && t >= p.fromUnix && t < p.toUnix;

export function readHours(
  ctx: CasesCallContext,
  map: SchemaMap,
  caseId: number,
  period: Period,
  maxRows: number,
  pageSize: number,
) {
  return withLearnedShapes(ctx, map, (shaped) =>
    withKnownSpelling(ctx, shaped, 'hourStartColumn', (m) => readHoursAs(ctx, m, caseId, period, maxRows, pageSize)),
  );
}

async function readHoursAs(
  ctx: CasesCallContext,
  map: SchemaMap,
  caseId: number,
  period: Period,
  maxRows: number,
  pageSize: number,
) {
  const column = enumLiteral(ctx, map.hourStartColumn);
  const filter = hoursCaseFilter(map);
  const query = `query CaseHours($cursor: String, $limit: Int!, $caseId: ${filter.variableType}, $from: Int, $to: Int) {
  hours(
    pagination: { cursor: $cursor, limit: $limit }
    between: { field: ${column}, from: $from, to: $to }
    filters: ${filter.value}
  ) {
    items { costPrice startTime }
    nextCursor
  }
}`;
  const result = await accumulate<HourRow>({
    ctx,
    query,
    variables: { caseId, from: period.fromUnix, to: period.toUnix },
    pageSize,
    maxRows,
    pick: (d) => (d as { hours: { items: HourRow[]; nextCursor: string | null } | null }).hours,
    keep: (row) => inPeriod(row.startTime, period),
  });
  return result;
}

export function readInvoices(
  ctx: CasesCallContext,
  map: SchemaMap,
  caseId: number,
  period: Period,
  maxRows: number,
  pageSize: number,
) {
  return withKnownSpelling(ctx, map, 'invoiceBetweenColumn', (m) =>
    readInvoicesAs(ctx, m, caseId, period, maxRows, pageSize),
  );
}

async function readInvoicesAs(
  ctx: CasesCallContext,
  map: SchemaMap,
  caseId: number,
  period: Period,
  maxRows: number,
  pageSize: number,
) {
  const inv = map.invoices;
  const amount = enumLiteral(ctx, inv.amountField);
  const date = inv.dateField ? enumLiteral(ctx, inv.dateField) : null;
  const args = ['pagination: { cursor: $cursor, limit: $limit }'];
  if (inv.betweenColumn) args.push(`between: { field: ${enumLiteral(ctx, inv.betweenColumn)}, from: $from, to: $to }`);
  if (inv.caseFilterKey) args.push(`filters: { ${enumLiteral(ctx, inv.caseFilterKey)}: $caseId }`);
  const selection = [
    'id',
    `amount: ${amount}`,
    date ? `date: ${date}` : '',
    !inv.caseFilterKey && inv.caseField ? 'case { id }' : '',
  ]
    .filter(Boolean)
    .join(' ');
  const variables = [
    `$cursor: String`,
    `$limit: Int!`,
    inv.betweenColumn ? '$from: Int, $to: Int' : '',
    inv.caseFilterKey ? '$caseId: Int' : '',
  ]
    .filter(Boolean)
    .join(', ');
  const query = `query CaseSalesInvoices(${variables}) {
  salesInvoices(${args.join(', ')}) {
    items { ${selection} }
    nextCursor
  }
}`;
  const result = await accumulate<InvoiceRow & { date?: number; case?: { id: number } | null }>({
    ctx,
    query,
    variables: {
      ...(inv.betweenColumn ? { from: period.fromUnix, to: period.toUnix } : {}),
      ...(inv.caseFilterKey ? { caseId } : {}),
    },
    pageSize,
    maxRows,
    pick: (d) =>
      (d as { salesInvoices: { items: Array<InvoiceRow & { date?: number }>; nextCursor: string | null } | null })
        .salesInvoices,
    keep: (row) => (date ? inPeriod(row.date, period) : true) && (inv.caseFilterKey ? true : row.case?.id === caseId),
    // Without a server-side case filter every invoice is scanned: stop after maxRows scanned rows.
    ...(inv.caseFilterKey ? {} : { maxScanned: maxRows }),
  });
  return {
    ...result,
    rows: result.rows.map((r) => ({ id: r.id, amount: typeof r.amount === 'number' ? r.amount : null })),
  };
}
