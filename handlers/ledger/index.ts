import type { LedgerHandlers } from '#generated/ledger/contract.ts';
import { listCompanies } from './list-companies.ts';
import { listDebtors } from './list-debtors.ts';
import { listDebtorOpenItems } from './list-debtor-open-items.ts';
import { listDebtorInvoices } from './list-debtor-invoices.ts';
import { listDebtorOrders } from './list-debtor-orders.ts';
import { listDebtorTransactions } from './list-debtor-transactions.ts';
import { listCreditors } from './list-creditors.ts';
import { listCreditorOpenItems } from './list-creditor-open-items.ts';
import { listCreditorTransactions } from './list-creditor-transactions.ts';
import { listGlAccounts } from './list-gl-accounts.ts';
import { getAccountBalance } from './get-account-balance.ts';
import { listGlTransactions } from './list-gl-transactions.ts';
import { listVatCodes } from './list-vat-codes.ts';
import { listInventoryItems } from './list-inventory-items.ts';
import { listProductGroups } from './list-product-groups.ts';
import { listInventoryTransactions } from './list-inventory-transactions.ts';
import { query } from './query.ts';
import { aggregate } from './aggregate.ts';
import { listRecentlyAddedItems } from './list-recently-added-items.ts';

/** Every Ledger tool's handler; `satisfies` makes a missing, extra or mistyped one a type error. */
export const ledgerHandlers = {
  list_companies: listCompanies,
  list_debtors: listDebtors,
  list_debtor_open_items: listDebtorOpenItems,
  list_debtor_invoices: listDebtorInvoices,
  list_debtor_orders: listDebtorOrders,
  list_debtor_transactions: listDebtorTransactions,
  list_creditors: listCreditors,
  list_creditor_open_items: listCreditorOpenItems,
  list_creditor_transactions: listCreditorTransactions,
  list_gl_accounts: listGlAccounts,
  get_account_balance: getAccountBalance,
  list_gl_transactions: listGlTransactions,
  list_vat_codes: listVatCodes,
  list_inventory_items: listInventoryItems,
  list_product_groups: listProductGroups,
  list_inventory_transactions: listInventoryTransactions,
  query: query,
  aggregate: aggregate,
  list_recently_added_items: listRecentlyAddedItems
} satisfies LedgerHandlers;
