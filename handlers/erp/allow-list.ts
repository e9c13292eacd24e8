// The 85 allow-listed entity sets of doc 000 ("Allow-listed entity sets") and the real API v2.0
// spellings where they differ (upstreams/erp.md §3, DECISIONS §15): both are accepted
// case-insensitively and the real name is always called.

/** The spec's names, in the spec's order. */
export const SPEC_ENTITY_SETS: readonly string[] = [
  'accounts',
  'accountingPeriods',
  'agedAccountsPayable',
  'agedAccountsReceivable',
  'applyVendorEntries',
  'approvalEntries',
  'approvalUserSetups',
  'attachments',
  'balanceSheets',
  'bankAccounts',
  'cashFlowStatements',
  'companyInformation',
  'contacts',
  'contactsInformation',
  'countriesRegions',
  'currencies',
  'currencyExchangeRates',
  'customers',
  'customerContacts',
  'customerFinancialDetails',
  'customerPaymentJournals',
  'customerPayments',
  'customerReturnReasons',
  'customerSales',
  'defaultDimensions',
  'dimensions',
  'dimensionSetLines',
  'dimensionValues',
  'disputeStatus',
  'documentAttachments',
  'employees',
  'fixedAssets',
  'fixedAssetLocations',
  'generalLedgerEntries',
  'generalLedgerSetup',
  'generalProductPostingGroups',
  'incomeStatements',
  'inventoryPostingGroups',
  'items',
  'itemCategories',
  'itemLedgerEntries',
  'itemVariants',
  'jobQueueEntries',
  'jobQueueLogEntries',
  'journals',
  'journalLines',
  'locations',
  'opportunities',
  'paymentMethods',
  'paymentTerms',
  'pictures',
  'postedApprovalEntries',
  'projects',
  'purchaseCreditMemos',
  'purchaseCreditMemoLines',
  'purchaseInvoices',
  'purchaseInvoiceLines',
  'purchaseOrders',
  'purchaseOrderLines',
  'purchaseReceipts',
  'purchaseReceiptLines',
  'retainedEarningsStatements',
  'salesCreditMemos',
  'salesCreditMemoLines',
  'salesInvoices',
  'salesInvoiceLines',
  'salesOrders',
  'salesOrderLines',
  'salesQuotes',
  'salesQuoteLines',
  'salesShipments',
  'salesShipmentLines',
  'salespersonsPurchasers',
  'shipmentMethods',
  'subscriptions',
  'taxAreas',
  'taxGroups',
  'timeRegistrationEntries',
  'trialBalances',
  'unitsOfMeasure',
  'vendors',
  'vendorPayments',
  'vendorPaymentJournals',
  'vendorPurchases',
  'workflowApprovers',
];

/** Spec name → the real API v2.0 entity set name, where they differ (upstreams/erp.md §3). */
const REAL_NAMES: Readonly<Record<string, string>> = {
  agedAccountsPayable: 'agedAccountsPayables',
  agedAccountsReceivable: 'agedAccountsReceivables',
  salespersonsPurchasers: 'salespeoplePurchasers',
};

/** The one environment-level set on the list: `{B}/api/v2.0/subscriptions`, not scoped by the company. */
export const ENVIRONMENT_LEVEL_SET = 'subscriptions';

/** Every accepted spelling (spec and real), lower-cased → the real name to call. */
const BY_LOWER_NAME: ReadonlyMap<string, string> = new Map(
  SPEC_ENTITY_SETS.flatMap((name) => {
    const real = REAL_NAMES[name] ?? name;
    return [
      [name.toLowerCase(), real],
      [real.toLowerCase(), real],
    ] as const;
  }),
);

/** Every accepted spelling once (spec names, then the real names that differ): the "closest matches" search both. */
const ALL_SPELLINGS: readonly string[] = [...SPEC_ENTITY_SETS, ...Object.values(REAL_NAMES)];

/** The real name of an allow-listed set, matched case-insensitively on either spelling. */
export function resolveEntitySet(name: string): string | undefined {
  return BY_LOWER_NAME.get(name.toLowerCase());
}

/** Whether an entity set of the service document is readable with query_entity. */
export function isQueryable(realName: string): boolean {
  return resolveEntitySet(realName)?.toLowerCase() === realName.toLowerCase();
}

/** Optimal string alignment distance (Levenshtein with adjacent transpositions), case-insensitive input expected. */
function distance(a: string, b: string): number {
  const rows: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [i, ...new Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) rows[0]![j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min(rows[i - 1]![j]! + 1, rows[i]![j - 1]! + 1, rows[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, rows[i - 2]![j - 2]! + 1);
      rows[i]![j] = d;
    }
  }
  return rows[a.length]![b.length]!;
}

/**
 * Up to `count` allow-listed spellings closest to `name`: names containing it or contained in it
 * first, then by edit distance, ties by name. Names that are neither related nor within half the
 * name's length in edits are left out, unless nothing is close, when the nearest are still shown.
 */
export function closestEntitySets(name: string, count: number): string[] {
  const wanted = name.toLowerCase();
  const ranked = ALL_SPELLINGS.map((candidate) => {
    const lower = candidate.toLowerCase();
    const related = lower.includes(wanted) || wanted.includes(lower);
    return { candidate, related, edits: distance(wanted, lower) };
  }).sort(
    (x, y) => Number(y.related) - Number(x.related) || x.edits - y.edits || x.candidate.localeCompare(y.candidate),
  );
  const close = ranked.filter((r) => r.related || r.edits <= Math.max(2, Math.ceil(wanted.length / 2)));
  return (close.length > 0 ? close : ranked).slice(0, count).map((r) => r.candidate);
}
