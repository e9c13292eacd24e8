// The SDL of the case-management sandbox's GraphQL schema (fake Ordrestyring.dk API) in its three
// modes and three independent shapes; schema.ts builds the executable schema from it (see the modes
// and shapes in schema.ts's header and ../shared/upstreams/cases.md §2).

export const CASES_SCHEMA_MODES = ['extended', 'public', 'upper-enum'] as const;
export type CasesSchemaMode = (typeof CASES_SCHEMA_MODES)[number];

/** The schema shapes public material disagrees on; the defaults are the shapes of upstreams/cases.md §2. */
export interface CasesSchemaShapes {
  caseTexts: 'object' | 'scalar';
  orderBy: 'list' | 'object';
  hoursCaseFilter: 'int' | 'object';
}

export const DEFAULT_SCHEMA_SHAPES: Readonly<CasesSchemaShapes> = {
  caseTexts: 'object',
  orderBy: 'list',
  hoursCaseFilter: 'int',
};

// ---------------------------------------------------------------------------------------------
// SDL
// ---------------------------------------------------------------------------------------------

/**
 * The SDL of one schema mode with its shapes. Long because: it is one
 * template literal, the schema as the upstream publishes it, read top to bottom like a .graphql file.
 */
export function casesSdl(mode: CasesSchemaMode, shapes: Readonly<CasesSchemaShapes> = DEFAULT_SCHEMA_SHAPES): string {
  const extended = mode !== 'public';
  const orderBy = shapes.orderBy === 'list' ? '[OrderByInput]' : 'OrderByInput';
  const statusType = shapes.caseTexts === 'scalar' ? 'String' : 'CaseStatus';
  const caseTypeType = shapes.caseTexts === 'scalar' ? 'String' : 'CaseType';
  const hoursCase = shapes.hoursCaseFilter === 'object' ? 'HourCaseFilterInput' : 'Int';
  const hoursCaseInput =
    shapes.hoursCaseFilter === 'object'
      ? '\n"One case\'s hours, with those of its sub-cases when asked for."\ninput ' +
        'HourCaseFilterInput {\n  id: Int!\n  includeSubcases: Boolean\n}\n'
      : '';
  const hourColumns =
    mode === 'upper-enum' ? 'START_TIME\n  CREATED_AT\n  UPDATED_AT' : 'startTime\n  createdAt\n  updatedAt';
  const invoiceColumns = mode === 'upper-enum' ? 'DATE\n  CREATED_AT' : 'date\n  createdAt';
  const ext = (text: string): string => (extended ? text : '');
  return `"""Sort direction."""
enum Direction {
  ASC
  DESC
}

"""Columns an hour registration can be range-filtered on (Unix seconds)."""
enum HourBetweenColumn {
  ${hourColumns}
}

"""Columns a sales invoice can be range-filtered on (Unix seconds)."""
enum SalesInvoiceBetweenColumn {
  ${invoiceColumns}
}

"""Who added a material line to a case."""
enum AddedBy {
  MATERIAL
  OFFER
}

input PaginationInput {
  """Cursor from a previous nextCursor or previousCursor; null for the first page."""
  cursor: String
  limit: Int!
}

input OrderByInput {
  """Column name in camelCase, for example "updatedAt" or "id"."""
  field: String!
  direction: Direction!
}

input Search {
  query: String
  fields: [String]!
}

input CaseFilterInput {
  statuses: [Int]
  customers: [Int]
}

input HourBetweenInput {
  field: HourBetweenColumn!
  from: Int
  to: Int
}

input HoursFilterInput {
  case: ${hoursCase}
  users: [Int]
}
${hoursCaseInput}
input SalesInvoiceBetweenInput {
  field: SalesInvoiceBetweenColumn!
  from: Int
  to: Int
}

input SalesInvoiceFilterInput {
  case: Int
}

input CaseMaterialFilterInput {
  caseIds: [Int]
}

type Query {
  """Cases of the company, paged with a cursor."""
  cases(pagination: PaginationInput!, orderBy: ${orderBy}, search: Search, filters: CaseFilterInput): CaseConnection
  """One case by its numeric id."""
  caseById(id: Int!): Case
  """One case by its human-facing case number."""
  caseByCaseNumber(caseNumber: String!): Case
  """Hour registrations (time sheets)."""
  hours(pagination: PaginationInput!, orderBy: ${orderBy},
    between: HourBetweenInput, filters: HoursFilterInput): HourConnection
  """Hour totals of one case, also per hour type."""
  hourAggregate(caseId: Int!): HourAggregate
  """Material and offer lines of cases."""
  caseMaterials(caseId: Int, type: AddedBy!, pagination: PaginationInput,
    orderBy: ${orderBy}, filters: CaseMaterialFilterInput): CaseMaterialConnection
  """Booked sales invoices."""
  salesInvoices(pagination: PaginationInput!, orderBy: ${orderBy},
    between: SalesInvoiceBetweenInput, filters: SalesInvoiceFilterInput): SalesInvoiceConnection
  """Employees of the company."""
  users(pagination: PaginationInput!): UserConnection
  """Hour types (wage types) of the company."""
  hourTypes(pagination: PaginationInput!, search: Search): HourTypeConnection
  """Product catalogue; prices in øre."""
  products(pagination: PaginationInput!, orderBy: ${orderBy}, search: Search): ProductConnection
  """GPS positions of employees."""
  gpsEntries(pagination: PaginationInput): GpsEntryConnection
    @deprecated(reason: "Use the GPS module endpoints instead.")
}

type Mutation {
  """Changes a case."""
  updateCase(id: Int!, description: String): Case
}

type CaseStatus {
  id: Int
  text: String
}

type CaseType {
  id: Int
  text: String
}

type User {
  id: Int
  fullName: String
  initials: String
  email: String
}

type Customer {
  id: Int
  name: String
  address: String
  postalCode: String
  city: String
  fullAddress: String
  email: String
  phone: String
}

type Address {
  name: String
  address: String
  postalCode: String
  city: String
  fullAddress: String
}

type Economy {
  hoursCostprice: Float
  hoursSalesprice: Float
  offer: Float
  revisedOffer: Float
  billableHoursCount: Float
  materialsCostprice: Float
${ext('  expectedCoverageRatio: Float\n  revenue: Float\n  materialsSalesprice: Float\n')}}

type Case {
  id: Int
  caseNumber: String
  projectName: String
  description: String
  status: ${statusType}
  caseType: ${caseTypeType}
  responsibleUser: User
  customer: Customer
  workAddress: Address
  deliveryAddress: Address
  economy: Economy
  """Unix seconds."""
  createdAt: Int
  """Unix seconds."""
  updatedAt: Int
${ext('  foreman: User\n  offerTotal: Float\n  parentCaseId: Int\n  subCases: [Case]\n')}}

type CaseConnection {
  items: [Case]
  nextCursor: String
  previousCursor: String
}

type HourType {
  id: Int
  name: String
}

type Hour {
  id: Int
  description: String
  """Unix seconds."""
  startTime: Int
  """Unix seconds."""
  stopTime: Int
  costPrice: Float
  salesPrice: Float
  billableHours: Float
  hourType: HourType
  user: User
  case: Case
  createdAt: Int
  updatedAt: Int
}

type HourConnection {
  items: [Hour]
  nextCursor: String
  previousCursor: String
}

type HourTypeAggregate {
  name: String
  totalCostPrice: Float
  totalHours: Float
}

type HourAggregate {
  totalCostPrice: Float
  totalHours: Float
  hourTypes: [HourTypeAggregate]
}

type CaseMaterial {
  id: Int
  addedBy: AddedBy
  productNumber: String
  name: String
  unit: String
  quantity: Float
  costPrice: Float
  salesPrice: Float
  totalCostPrice: Float
  totalSalesPrice: Float
  createdAt: Int
  case: Case
}

type CaseMaterialConnection {
  items: [CaseMaterial]
  nextCursor: String
  previousCursor: String
}

type SalesInvoice {
  id: Int
  invoiceNumber: Int
  """Invoice date, Unix seconds (local midnight)."""
  date: Int
  amount: Float
  createdAt: Int
  case: Case
}

type SalesInvoiceConnection {
  items: [SalesInvoice]
  nextCursor: String
  previousCursor: String
}

type UserConnection {
  items: [User]
  nextCursor: String
  previousCursor: String
}

type HourTypeConnection {
  items: [HourType]
  nextCursor: String
  previousCursor: String
}

type Product {
  id: Int
  productNumber: String
  name: String
  unit: String
  """Øre."""
  costPrice: Int
  """Øre."""
  listPrice: Int
}

type ProductConnection {
  items: [Product]
  nextCursor: String
  previousCursor: String
}

type GpsEntry {
  id: Int
  latitude: Float
  longitude: Float
  timestamp: Int
  user: User
}

type GpsEntryConnection {
  items: [GpsEntry]
  nextCursor: String
  previousCursor: String
}
`;
}
