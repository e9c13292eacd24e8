import type { BooksHandler } from '#generated/books/contract.ts';
import { orgPath } from './client.ts';
import { CREDIT_NOTE_FIELDS, salesList } from './sales-list.ts';

/** `GET /v1/{o}/sales/creditnotes`: the envelope with the sales filters (drafts ignore the date range). */
export const listCreditNotes: BooksHandler<'list_credit_notes'> = (args, ctx) =>
  salesList(ctx, orgPath(args.organizationId, '/sales/creditnotes'), CREDIT_NOTE_FIELDS, args, 'creditNoteAmountsNote');
