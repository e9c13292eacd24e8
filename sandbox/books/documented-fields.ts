// The `fields` each Dinero endpoint documents, in one place: the sandbox refuses (or records) any
// other name, and test/books-handlers.test.ts checks every `fields` the 52 tools send against it.
//
// Sources, in order: ../shared/upstreams/books.md §2 (the tool table and "Main models"), then the
// OpenAPI text it cites (§6: the `fields` parameter's "Possible values" and default of each list
// endpoint). Where both document an endpoint, the set is what BOTH name, so a fake written from
// either accepts every name we send:
//   - /v1/organizations: books.md's OrganizationReadModel adds CountryKey and Website, but the
//     OpenAPI `fields` list has neither and books.md §5 leaves CountryKey on `fields` unconfirmed.
//   - /invoices: books.md's "Invoice list item" has Type; the OpenAPI list of /invoices does not
//     (only /sales does). /sales/creditnotes ("as #21" in books.md) lacks Type and LatestMailOutType.
//   - /contacts: ContactReadModel ∩ the OpenAPI list (IsDebitor, IsCreditor, SENumber, PNumber are
//     get_contact-only; Webpage, AttPerson, IsMember, … are not in books.md's model).
// Where books.md names no model (contact notes, trade offers, products) the OpenAPI list is the
// documented set; products also accept ProductGuid, which is in the documented default.
// Nothing may import the project from here (sandbox rule); handlers keep their own constants.

export interface FieldsEndpoint {
  /** The request path pattern (`{o}` = organisation id, `{guid}` = a uuid). */
  readonly path: string;
  /** The names `fields` may carry (compared case-insensitively: the upstream echoes any casing). */
  readonly documented: readonly string[];
  /** The columns answered without `fields`, in their documented casing. */
  readonly defaults: readonly string[];
}

const SALES_LIST = [
  'Number',
  'Guid',
  'ExternalReference',
  'ContactName',
  'ContactGuid',
  'Date',
  'PaymentDate',
  'Description',
  'Currency',
  'Status',
  'MailOutStatus',
  'TotalExclVatInDkk',
  'TotalInclVatInDkk',
  'TotalExclVat',
  'TotalInclVat',
  'CreatedAt',
  'UpdatedAt',
  'DeletedAt',
] as const;

const CONTACT_LIST = [
  'ContactGuid',
  'Name',
  'Street',
  'ZipCode',
  'City',
  'CountryKey',
  'Phone',
  'Email',
  'VatNumber',
  'EanNumber',
  'PaymentConditionType',
  'PaymentConditionNumberOfDays',
  'IsPerson',
  'ExternalReference',
  'VatRegionKey',
  'CreatedAt',
  'UpdatedAt',
  'DeletedAt',
] as const;

export const BOOKS_FIELDS = {
  organizations: {
    path: '/v1/organizations',
    documented: [
      'Id',
      'Name',
      'Type',
      'IsPro',
      'IsPayingPro',
      'IsVatFree',
      'Email',
      'Phone',
      'Street',
      'City',
      'ZipCode',
      'AttPerson',
      'IsTaxFreeUnion',
      'VatNumber',
    ],
    defaults: ['id', 'name', 'isPro'],
  },
  entryAccounts: {
    path: '/v1/{o}/accounts/entry',
    documented: ['AccountNumber', 'Name', 'VatCode', 'Category', 'CategoryName', 'IsHidden'],
    defaults: ['AccountNumber', 'Name', 'IsHidden'],
  },
  depositAccounts: {
    path: '/v1/{o}/accounts/deposit',
    // books.md #8: "`fields` + IsDefault,IsHidden (+Bank* when bank details wanted)"; the Bank* names are
    // DepositAccountReadModel's.
    documented: [
      'AccountNumber',
      'Name',
      'IsDefault',
      'IsHidden',
      'BankRegistrationNumber',
      'BankAccountNumber',
      'BankSwiftNumber',
      'BankIbanNumber',
    ],
    defaults: ['AccountNumber', 'Name'],
  },
  contacts: { path: '/v1/{o}/contacts', documented: CONTACT_LIST, defaults: ['name', 'contactGuid'] },
  contactsV2: { path: '/v2/{o}/contacts', documented: CONTACT_LIST, defaults: ['name', 'contactGuid'] },
  contactNotes: {
    path: '/v1/{o}/contacts/{guid}/notes',
    documented: ['Id', 'NoteDate', 'Text', 'AuthorName', 'AuthorEmail', 'CreatedAt', 'UpdatedAt', 'DeletedAt'],
    defaults: ['Id', 'NoteDate', 'Text'],
  },
  invoices: {
    path: '/v1/{o}/invoices',
    documented: [...SALES_LIST, 'LatestMailOutType'],
    defaults: ['Guid', 'ContactName', 'Date', 'Description'],
  },
  sales: {
    path: '/v1/{o}/sales',
    documented: [...SALES_LIST, 'LatestMailOutType', 'Type'],
    defaults: ['Guid', 'ContactName', 'Date', 'Description', 'Type'],
  },
  creditNotes: {
    path: '/v1/{o}/sales/creditnotes',
    documented: SALES_LIST,
    defaults: ['Guid', 'ContactName', 'Date', 'Description'],
  },
  tradeOffers: {
    path: '/v1/{o}/tradeoffers',
    documented: [
      'Number',
      'Guid',
      'TimeStamp',
      'ContactName',
      'ContactGuid',
      'Address',
      'Date',
      'Comment',
      'Description',
      'ExternalReference',
      'Language',
      'Currency',
      'TotalExclVat',
      'TotalVatableAmount',
      'TotalInclVat',
      'TotalNonVatableAmount',
      'TotalVat',
      'HasGeneratedAnyVouchers',
      'Status',
      'MailOutStatus',
      'LatestMailOutType',
      'CreatedAt',
      'UpdatedAt',
      'DeletedAt',
    ],
    defaults: ['guid', 'contactName', 'date', 'description'],
  },
  products: {
    path: '/v1/{o}/products',
    documented: [
      'ProductGuid',
      'Name',
      'ProductNumber',
      'Quantity',
      'Unit',
      'AccountNumber',
      'BaseAmountValue',
      'BaseAmountValueInclVat',
      'TotalAmount',
      'TotalAmountInclVat',
      'ExternalReference',
      'CreatedAt',
      'UpdatedAt',
      'DeletedAt',
    ],
    defaults: ['Name', 'ProductGuid'],
  },
} as const satisfies Record<string, FieldsEndpoint>;

export type BooksFieldsEndpoint = keyof typeof BOOKS_FIELDS;

const PATTERNS: readonly [BooksFieldsEndpoint, RegExp][] = Object.entries(BOOKS_FIELDS).map(([key, endpoint]) => [
  key as BooksFieldsEndpoint,
  new RegExp(`^${endpoint.path.replace(/[.]/g, '\\.').replace('{o}', '\\d+').replace('{guid}', '[^/]+')}$`),
]);

/** The endpoint a request path (as sent, without the query) belongs to, when it takes `fields`. */
export function fieldsEndpointOf(path: string): BooksFieldsEndpoint | undefined {
  return PATTERNS.find(([, pattern]) => pattern.test(path))?.[0];
}

/** Whether `name` is a documented field of the endpoint (any casing). */
export function isDocumentedField(endpoint: BooksFieldsEndpoint, name: string): boolean {
  const wanted = name.toLowerCase();
  return (BOOKS_FIELDS[endpoint].documented as readonly string[]).some((f) => f.toLowerCase() === wanted);
}
