// The collection lists of sales documents (list_invoices, list_sales, list_credit_notes,
// list_invoices_overdue): the `{Collection, Pagination}` envelope with the filters of books.md §2
// and §3 #8. Identifier filters go into `queryFilter` (`ContactGuid eq '…'`, `ExternalReference eq
// '…'`, `Description contains '…'`); `startDate` and `endDate` only together.
import type { BooksContextWith, BooksResultTexts } from '#generated/books/contract.ts';
import { type Envelope, queryFilter, readEnvelope, since } from './client.ts';

type Codes =
  | 'generic'
  | 'access_token_expired'
  | 'pro_plan_required'
  | 'upstream_rate_limit'
  | 'deprecated_endpoint'
  | 'upstream_rejected'
  | 'quote_in_filter'
  | 'date_range_incomplete';
export type SalesListContext = BooksContextWith<
  Codes,
  { readonly errorMessageMaxChars: number; readonly upstreamRequestsPerMinute: number; readonly quotaMaxWaitMs: number }
>;

/**
 * The columns asked for (PascalCase; the defaults omit most of them): books.md §2 "Invoice list item"
 * as far as each endpoint's own `fields` list documents it. Only `/sales` has `Type` (it mixes
 * invoices and credit notes); credit notes have no `LatestMailOutType`.
 */
const COMMON_FIELDS =
  'Number,Guid,ExternalReference,Date,PaymentDate,Description,Status,ContactName,ContactGuid,TotalInclVat,' +
  'TotalExclVat,TotalInclVatInDkk,TotalExclVatInDkk,MailOutStatus,Currency,CreatedAt,UpdatedAt,DeletedAt';
export const INVOICE_FIELDS = `${COMMON_FIELDS},LatestMailOutType`;
export const SALES_FIELDS = `${COMMON_FIELDS},LatestMailOutType,Type`;
export const CREDIT_NOTE_FIELDS = COMMON_FIELDS;

export interface SalesListArgs {
  readonly organizationId: number;
  readonly status?: string;
  readonly startDate?: string;
  readonly endDate?: string;
  readonly freeTextSearch?: string;
  readonly contactGuid?: string;
  readonly externalReference?: string;
  readonly descriptionContains?: string;
  readonly changesSince?: string;
  readonly deletedOnly: boolean;
  readonly sort?: string;
  readonly sortOrder?: string;
  readonly page: number;
  readonly pageSize: number;
}

/**
 * A sales list's envelope with the note on adding its amounts up (totals are per currency and not what remains unpaid).
 */
export type SalesEnvelope = Envelope & { readonly amountsNote: string };

/** Which `amountsNote` a list carries: invoices, credit notes, or both (list_sales). */
export type AmountsNote = keyof BooksResultTexts;

/** The envelope of a sales list with its `amountsNote`. */
export function withAmountsNote(ctx: BooksContextWith<never>, envelope: Envelope, note: AmountsNote): SalesEnvelope {
  return { ...envelope, amountsNote: ctx.text(note) };
}

export async function salesList(
  ctx: SalesListContext,
  path: string,
  fields: string,
  args: SalesListArgs,
  note: AmountsNote,
): Promise<SalesEnvelope> {
  if ((args.startDate === undefined) !== (args.endDate === undefined))
    return ctx.refuseArguments('date_range_incomplete');
  const filter = queryFilter(ctx, [
    ['contactGuid', 'ContactGuid', 'eq', args.contactGuid],
    ['externalReference', 'ExternalReference', 'eq', args.externalReference],
    ['descriptionContains', 'Description', 'contains', args.descriptionContains],
  ]);
  const envelope = await readEnvelope(
    ctx,
    path,
    args,
    {
      fields,
      statusFilter: args.status,
      startDate: args.startDate,
      endDate: args.endDate,
      freeTextSearch: args.freeTextSearch,
      queryFilter: filter,
      changesSince: since(args.changesSince),
      deletedOnly: args.deletedOnly,
      sort: args.sort,
      sortOrder: args.sortOrder,
    },
    'a sales document list',
  );
  return withAmountsNote(ctx, envelope, note);
}
