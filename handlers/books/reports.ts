// The four report tools and get_account_balance (books.md §2 #9–13): GET
// `/v1/{o}/{accountingYear}/reports/{kind}` with every option sent explicitly, because the
// upstream's defaults differ from the spec's (`includeSummaryAccount` defaults to true upstream,
// `showZeroAccount` is the spec's `includeZeroAccounts`, §3 #4–5). The account range is applied here.
import {
  type BooksContext,
  dineroJson,
  isRow,
  numberOr,
  orgPath,
  prop,
  segment,
  stringOrNull,
  type Row,
} from './client.ts';

export type ReportKind = 'saldo' | 'result' | 'balance' | 'primo';

export type ReportRow = {
  accountNumber: number;
  accountName: string | null;
  amount: number;
};

export interface ReportOptions {
  readonly organizationId: number;
  readonly accountingYear: string;
  readonly includeZeroAccounts: boolean;
  readonly includeSummaryAccounts: boolean;
  readonly accountNumberFrom?: number;
  readonly accountNumberTo?: number;
}

/**
 * The rows of a report body: a bare array, or an object holding one (tolerated). Rows without an account number are
 * headings: skipped.
 */
function rowsOf(body: unknown): Row[] {
  if (Array.isArray(body)) return body.filter(isRow);
  if (isRow(body))
    for (const key of ['Rows', 'Accounts', 'Collection', 'Lines']) {
      const inner = prop(body, key);
      if (Array.isArray(inner)) return inner.filter(isRow);
    }
  throw new Error('Dinero answered a report with neither an array of rows nor an object holding one');
}

function accountNumberOf(value: unknown): number | undefined {
  if (typeof value === 'number' && Number.isInteger(value)) return value;
  if (typeof value === 'string' && /^\d+$/.test(value.trim())) return Number(value.trim());
  return undefined;
}

export async function readReport(
  ctx: BooksContext,
  kind: ReportKind,
  options: ReportOptions,
): Promise<{ accountingYear: string; count: number; rows: ReportRow[] }> {
  const query: Record<string, boolean> = {
    showZeroAccount: options.includeZeroAccounts,
    includeSummaryAccount: options.includeSummaryAccounts,
    showAccountNo: true,
    showVatType: false,
  };
  if (kind !== 'primo') query.includeLedgerEntries = false;
  const body = await dineroJson(ctx, {
    path: orgPath(options.organizationId, `/${segment(options.accountingYear)}/reports/${kind}`),
    query,
  });
  const rows: ReportRow[] = [];
  for (const row of rowsOf(body)) {
    const accountNumber = accountNumberOf(prop(row, 'AccountNumber'));
    if (accountNumber === undefined) continue;
    if (options.accountNumberFrom !== undefined && accountNumber < options.accountNumberFrom) continue;
    if (options.accountNumberTo !== undefined && accountNumber > options.accountNumberTo) continue;
    rows.push({
      accountNumber,
      accountName: stringOrNull(prop(row, 'AccountName')),
      amount: numberOr(prop(row, 'Amount'), 0),
    });
  }
  return { accountingYear: options.accountingYear, count: rows.length, rows };
}
