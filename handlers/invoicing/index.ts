import type { InvoicingHandlers } from '#generated/invoicing/contract.ts';
import { getInvoiceTotals } from './get-invoice-totals.ts';
import { listInvoicesOverdue } from './list-invoices-overdue.ts';
import { listCustomers } from './list-customers.ts';
import { getCustomer } from './get-customer.ts';
import { listBookedInvoices } from './list-booked-invoices.ts';
import { getBookedInvoice } from './get-booked-invoice.ts';
import { downloadInvoicePdf } from './download-invoice-pdf.ts';
import { listDraftInvoices } from './list-draft-invoices.ts';
import { listChartOfAccounts } from './list-chart-of-accounts.ts';
import { listYearAccountTotals } from './list-year-account-totals.ts';
import { getAccountYearTotal } from './get-account-year-total.ts';
import { listAccountingYears } from './list-accounting-years.ts';
import { listAccountingPeriods } from './list-accounting-periods.ts';
import { listAccountEntries } from './list-account-entries.ts';
import { listProducts } from './list-products.ts';
import { listSuppliers } from './list-suppliers.ts';
import { listVatAccounts } from './list-vat-accounts.ts';
import { listCustomerGroups } from './list-customer-groups.ts';
import { listPaymentTerms } from './list-payment-terms.ts';
import { listVatZones } from './list-vat-zones.ts';
import { listLayouts } from './list-layouts.ts';
import { listUnits } from './list-units.ts';
import { validateConnection } from './validate-connection.ts';
import { createCustomer } from './create-customer.ts';
import { updateCustomer } from './update-customer.ts';
import { createDraftInvoice } from './create-draft-invoice.ts';
import { duplicateInvoice } from './duplicate-invoice.ts';

/** Every Invoicing tool's handler; `satisfies` makes a missing, extra or mistyped one a type error. */
export const invoicingHandlers = {
  get_invoice_totals: getInvoiceTotals,
  list_invoices_overdue: listInvoicesOverdue,
  list_customers: listCustomers,
  get_customer: getCustomer,
  list_booked_invoices: listBookedInvoices,
  get_booked_invoice: getBookedInvoice,
  download_invoice_pdf: downloadInvoicePdf,
  list_draft_invoices: listDraftInvoices,
  list_chart_of_accounts: listChartOfAccounts,
  list_year_account_totals: listYearAccountTotals,
  get_account_year_total: getAccountYearTotal,
  list_accounting_years: listAccountingYears,
  list_accounting_periods: listAccountingPeriods,
  list_account_entries: listAccountEntries,
  list_products: listProducts,
  list_suppliers: listSuppliers,
  list_vat_accounts: listVatAccounts,
  list_customer_groups: listCustomerGroups,
  list_payment_terms: listPaymentTerms,
  list_vat_zones: listVatZones,
  list_layouts: listLayouts,
  list_units: listUnits,
  validate_connection: validateConnection,
  create_customer: createCustomer,
  update_customer: updateCustomer,
  create_draft_invoice: createDraftInvoice,
  duplicate_invoice: duplicateInvoice
} satisfies InvoicingHandlers;
