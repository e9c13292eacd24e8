import type { InvoicingHandler } from '../../generated/invoicing/contract.ts';
import { withString, readList } from './list.ts';

/** `invoicing__list_vat_accounts`: GET /vat-accounts (upstreams/invoicing.md §2), as the spec's list result. */
export const listVatAccounts: InvoicingHandler<'list_vat_accounts'> = async (args, ctx) =>
  readList(ctx, '/vat-accounts', { pagesize: args.pagesize, skippages: args.skippages }, withString('vatCode'));
