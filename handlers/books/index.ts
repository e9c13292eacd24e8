import type { BooksHandlers } from '#generated/books/contract.ts';
import { listOrganizations } from './list-organizations.ts';
import { validateConnection } from './validate-connection.ts';
import { listAccountingYears } from './list-accounting-years.ts';
import { listCountries } from './list-countries.ts';
import { listVatTypes } from './list-vat-types.ts';
import { getSalesSettings } from './get-sales-settings.ts';
import { listChartOfAccounts } from './list-chart-of-accounts.ts';
import { listDepositAccounts } from './list-deposit-accounts.ts';
import { getSaldoBalanceReport } from './get-saldo-balance-report.ts';
import { getResultReport } from './get-result-report.ts';
import { getBalanceReport } from './get-balance-report.ts';
import { getPrimoBalanceReport } from './get-primo-balance-report.ts';
import { getAccountBalance } from './get-account-balance.ts';
import { listEntries } from './list-entries.ts';
import { listEntryChanges } from './list-entry-changes.ts';
import { listContacts } from './list-contacts.ts';
import { getContact } from './get-contact.ts';
import { listContactNotes } from './list-contact-notes.ts';
import { getContactStateOfAccount } from './get-contact-state-of-account.ts';
import { downloadContactStateOfAccountPdf } from './download-contact-state-of-account-pdf.ts';
import { listInvoices } from './list-invoices.ts';
import { listInvoicesOverdue } from './list-invoices-overdue.ts';
import { getInvoice } from './get-invoice.ts';
import { downloadInvoicePdf } from './download-invoice-pdf.ts';
import { listInvoicePayments } from './list-invoice-payments.ts';
import { calculateInvoiceTotals } from './calculate-invoice-totals.ts';
import { listInvoiceMailouts } from './list-invoice-mailouts.ts';
import { listInvoiceReminders } from './list-invoice-reminders.ts';
import { getInvoiceReminder } from './get-invoice-reminder.ts';
import { downloadInvoiceReminderPdf } from './download-invoice-reminder-pdf.ts';
import { getNextInvoiceReminder } from './get-next-invoice-reminder.ts';
import { previewInvoiceReminder } from './preview-invoice-reminder.ts';
import { listSales } from './list-sales.ts';
import { listCreditNotes } from './list-credit-notes.ts';
import { getCreditNote } from './get-credit-note.ts';
import { downloadCreditNotePdf } from './download-credit-note-pdf.ts';
import { listCreditNotePayments } from './list-credit-note-payments.ts';
import { listCreditNoteMailouts } from './list-credit-note-mailouts.ts';
import { listTradeOffers } from './list-trade-offers.ts';
import { getTradeOffer } from './get-trade-offer.ts';
import { downloadTradeOfferPdf } from './download-trade-offer-pdf.ts';
import { listTradeOfferMailouts } from './list-trade-offer-mailouts.ts';
import { getPurchaseVoucher } from './get-purchase-voucher.ts';
import { getPurchaseVoucherPayments } from './get-purchase-voucher-payments.ts';
import { getPurchaseVouchersByFile } from './get-purchase-vouchers-by-file.ts';
import { getPurchaseCreditNote } from './get-purchase-credit-note.ts';
import { getManualVoucher } from './get-manual-voucher.ts';
import { listProducts } from './list-products.ts';
import { getProduct } from './get-product.ts';
import { listFiles } from './list-files.ts';
import { downloadFile } from './download-file.ts';
import { listDocumentAttachments } from './list-document-attachments.ts';

/** Every Bookkeeping reports tool's handler; `satisfies` makes a missing, extra or mistyped one a type error. */
export const booksHandlers = {
  list_organizations: listOrganizations,
  validate_connection: validateConnection,
  list_accounting_years: listAccountingYears,
  list_countries: listCountries,
  list_vat_types: listVatTypes,
  get_sales_settings: getSalesSettings,
  list_chart_of_accounts: listChartOfAccounts,
  list_deposit_accounts: listDepositAccounts,
  get_saldo_balance_report: getSaldoBalanceReport,
  get_result_report: getResultReport,
  get_balance_report: getBalanceReport,
  get_primo_balance_report: getPrimoBalanceReport,
  get_account_balance: getAccountBalance,
  list_entries: listEntries,
  list_entry_changes: listEntryChanges,
  list_contacts: listContacts,
  get_contact: getContact,
  list_contact_notes: listContactNotes,
  get_contact_state_of_account: getContactStateOfAccount,
  download_contact_state_of_account_pdf: downloadContactStateOfAccountPdf,
  list_invoices: listInvoices,
  list_invoices_overdue: listInvoicesOverdue,
  get_invoice: getInvoice,
  download_invoice_pdf: downloadInvoicePdf,
  list_invoice_payments: listInvoicePayments,
  calculate_invoice_totals: calculateInvoiceTotals,
  list_invoice_mailouts: listInvoiceMailouts,
  list_invoice_reminders: listInvoiceReminders,
  get_invoice_reminder: getInvoiceReminder,
  download_invoice_reminder_pdf: downloadInvoiceReminderPdf,
  get_next_invoice_reminder: getNextInvoiceReminder,
  preview_invoice_reminder: previewInvoiceReminder,
  list_sales: listSales,
  list_credit_notes: listCreditNotes,
  get_credit_note: getCreditNote,
  download_credit_note_pdf: downloadCreditNotePdf,
  list_credit_note_payments: listCreditNotePayments,
  list_credit_note_mailouts: listCreditNoteMailouts,
  list_trade_offers: listTradeOffers,
  get_trade_offer: getTradeOffer,
  download_trade_offer_pdf: downloadTradeOfferPdf,
  list_trade_offer_mailouts: listTradeOfferMailouts,
  get_purchase_voucher: getPurchaseVoucher,
  get_purchase_voucher_payments: getPurchaseVoucherPayments,
  get_purchase_vouchers_by_file: getPurchaseVouchersByFile,
  get_purchase_credit_note: getPurchaseCreditNote,
  get_manual_voucher: getManualVoucher,
  list_products: listProducts,
  get_product: getProduct,
  list_files: listFiles,
  download_file: downloadFile,
  list_document_attachments: listDocumentAttachments
} satisfies BooksHandlers;
