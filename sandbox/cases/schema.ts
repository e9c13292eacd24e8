// Executable GraphQL schema of the case-management sandbox (fake Ordrestyring.dk API): the SDL in
// three modes, resolvers over the seeded data in ./data.ts, and one `executeCasesQuery` that runs
// a request through graphql-js (parse, validate, execute). See ../shared/upstreams/cases.md §4.
// The SDL itself is in sdl.ts (re-exported here).
//
// Schema modes:
//   "extended"   (default) public fields plus the spec-only case fields (foreman, offerTotal,
//                parentCaseId, subCases, economy.expectedCoverageRatio/revenue/materialsSalesprice)
//   "public"     only the field names seen in public sources; the spec-only fields are absent
//   "upper-enum" like "extended", but the range enums are upper case: HourBetweenColumn is spelled
//                START_TIME/CREATED_AT/UPDATED_AT and SalesInvoiceBetweenColumn DATE/CREATED_AT
//
// Schema shapes (each independent of the mode; upstreams/cases.md §2 against public material):
//   caseTexts        "object" (default) `status { text }`, `caseType { text }`; "scalar" `status: String`,
//                    `caseType: String` (a public client's schema model)
//   orderBy          "list" (default) `orderBy: ${orderBy}`; "object" `orderBy: OrderByInput` (the
//                    official guide's `orderBy: {field: "updatedAt", direction: DESC}`)
//   hoursCaseFilter  "int" (default) `HoursFilterInput { case: Int }`; "object" `case: HourCaseFilterInput`
//                    with `{ id: Int!, includeSubcases: Boolean }` (a public client's special case)
//
// Conventions copied from the upstream: `pagination: {cursor, limit}` → `{items, nextCursor,
// previousCursor}` with Laravel-style base64url JSON cursors tied to the active orderBy;
// `orderBy: [{field: "<string>", direction: ASC|DESC}]` (a single object is coerced to a list; shape "object" declares
// one);
// `between: {field: <enum>, from, to}` in Unix seconds. Argument problems come back as Laravel
// validation errors: message "validation" and `extensions.validation.<argument path>`.

import {
  GraphQLError,
  NoSchemaIntrospectionCustomRule,
  buildSchema,
  defaultFieldResolver,
  getNamedType,
  graphql,
  isObjectType,
  isScalarType,
  specifiedRules,
} from 'graphql';
import type { ExecutionResult, GraphQLFieldResolver, GraphQLResolveInfo, GraphQLSchema } from 'graphql';
import { type CasesSchemaMode, type CasesSchemaShapes, casesSdl, DEFAULT_SCHEMA_SHAPES } from './sdl.ts';
import type {
  AddedBy,
  CaseRecord,
  GpsEntryRecord,
  HourRecord,
  HourTypeRecord,
  InvoiceRecord,
  MaterialRecord,
  UserRecord,
} from './data.ts';

import {
  applyBetween,
  applySearch,
  type BetweenArg,
  BY_ID,
  CASES,
  type CasesContext,
  HOURS,
  INVOICES,
  MATERIALS,
  type OrderByValue,
  PRODUCTS,
  type PaginationArg,
  paginate,
  type SearchArg,
  validationError,
} from './pagination.ts';

export {
  CASES_SCHEMA_MODES,
  type CasesSchemaMode,
  type CasesSchemaShapes,
  casesSdl,
  DEFAULT_SCHEMA_SHAPES,
} from './sdl.ts';
export {
  type CasesContext,
  type CasesResolverSwitches,
  FOREIGN_CURSOR_MESSAGE,
  INVALID_CURSOR_MESSAGE,
  validationError,
} from './pagination.ts';

/** Message of the injected backend fault (switch `sqlErrorField`). */
export const SQL_ERROR_MESSAGE =
  'SQLSTATE[42000]: Syntax error or access violation: 1055 Expression #3 of SELECT list is not in GROUP BY ' +
  "clause and contains nonaggregated column 'ordrestyring.hours.cost_price' which is not functionally " +
  'dependent on columns in GROUP BY clause; this is incompatible with sql_mode=only_full_group_by';

// ---------------------------------------------------------------------------------------------
// Resolvers (paging, ordering and ranges are in pagination.ts)
// ---------------------------------------------------------------------------------------------

function round2(value: number): number {
  return Math.round(value * 100) / 100;
}

// biome-ignore lint/suspicious/noExplicitAny: graphql-js passes untyped sources and arguments; resolvers narrow them.
type Resolver = (source: any, args: any, ctx: CasesContext, info: GraphQLResolveInfo) => unknown;

function knownCase(ctx: CasesContext, id: number, argument: string, text: string): CaseRecord {
  const found = ctx.company.casesById.get(id);
  if (found === undefined) throw validationError({ [argument]: [text] });
  return found;
}

const CASE_SEARCH_FIELDS: Record<string, (c: CaseRecord) => string> = {
  caseNumber: (c) => c.caseNumber,
  projectName: (c) => c.projectName,
  description: (c) => c.description,
  customer: (c) => c.customer.name,
  workAddress: (c) => c.workAddress.fullAddress,
};

const QUERY: Record<string, Resolver> = {
  cases(
    _root,
    args: {
      pagination: PaginationArg;
      orderBy?: OrderByValue;
      search?: SearchArg | null;
      filters?: { statuses?: Array<number | null> | null; customers?: Array<number | null> | null } | null;
    },
    ctx,
  ) {
    let items: readonly CaseRecord[] = ctx.company.cases;
    const statuses = args.filters?.statuses;
    if (statuses !== null && statuses !== undefined && statuses.length > 0)
      items = items.filter((c) => statuses.includes(c.status.id));
    const customers = args.filters?.customers;
    if (customers !== null && customers !== undefined && customers.length > 0)
      items = items.filter((c) => customers.includes(c.customer.id));
    items = applySearch(items, args.search, CASE_SEARCH_FIELDS);
    return paginate(items, CASES, args, ctx);
  },
  caseById(_root, args: { id: number }, ctx) {
    return knownCase(ctx, args.id, 'id', 'The selected id is invalid.');
  },
  caseByCaseNumber(_root, args: { caseNumber: string }, ctx) {
    return ctx.company.cases.find((c) => c.caseNumber === args.caseNumber) ?? null;
  },
  hours(
    _root,
    args: {
      pagination: PaginationArg;
      orderBy?: OrderByValue;
      between?: BetweenArg | null;
      filters?: {
        case?: number | { id: number; includeSubcases?: boolean | null } | null;
        users?: Array<number | null> | null;
      } | null;
    },
    ctx,
  ) {
    const filter = args.filters?.case;
    let items: readonly HourRecord[] = ctx.company.hours;
    if (typeof filter === 'number') items = ctx.company.hoursByCase.get(filter) ?? [];
    else if (filter !== null && filter !== undefined) {
      // Shape "object": `{ id, includeSubcases }`; sub-cases' hours only when asked for.
      const ids = [
        filter.id,
        ...(filter.includeSubcases === true ? (ctx.company.casesById.get(filter.id)?.subCaseIds ?? []) : []),
      ];
      items = ids.flatMap((id) => ctx.company.hoursByCase.get(id) ?? []);
    }
    const users = args.filters?.users;
    if (users !== null && users !== undefined && users.length > 0)
      items = items.filter((h) => users.includes(h.user.id));
    items = applyBetween(
      items,
      args.between,
      { starttime: (h) => h.startTime, createdat: (h) => h.createdAt, updatedat: (h) => h.updatedAt },
      ctx,
    );
    return paginate(items, HOURS, args, ctx);
  },
  hourAggregate(_root, args: { caseId: number }, ctx) {
    knownCase(ctx, args.caseId, 'caseId', 'The selected case id is invalid.');
    const hours = ctx.company.hoursByCase.get(args.caseId) ?? [];
    const byType = new Map<number, { type: HourTypeRecord; cost: number; seconds: number }>();
    let cost = 0;
    let seconds = 0;
    for (const h of hours) {
      cost += h.costPrice;
      seconds += h.stopTime - h.startTime;
      const entry = byType.get(h.hourType.id) ?? { type: h.hourType, cost: 0, seconds: 0 };
      entry.cost += h.costPrice;
      entry.seconds += h.stopTime - h.startTime;
      byType.set(h.hourType.id, entry);
    }
    return {
      totalCostPrice: round2(cost),
      totalHours: round2(seconds / 3600),
      hourTypes: [...byType.values()]
        .sort((a, b) => a.type.id - b.type.id)
        .map((e) => ({ name: e.type.name, totalCostPrice: round2(e.cost), totalHours: round2(e.seconds / 3600) })),
    };
  },
  caseMaterials(
    _root,
    args: {
      caseId?: number | null;
      type: AddedBy;
      pagination?: PaginationArg | null;
      orderBy?: OrderByValue;
      filters?: { caseIds?: Array<number | null> | null } | null;
    },
    ctx,
  ) {
    let items: readonly MaterialRecord[] =
      args.caseId === null || args.caseId === undefined
        ? ctx.company.materials
        : (ctx.company.materialsByCase.get(args.caseId) ?? []);
    items = items.filter((m) => m.addedBy === args.type);
    const caseIds = args.filters?.caseIds;
    if (caseIds !== null && caseIds !== undefined && caseIds.length > 0)
      items = items.filter((m) => caseIds.includes(m.caseId));
    return paginate(items, MATERIALS, args, ctx);
  },
  salesInvoices(
    _root,
    args: {
      pagination: PaginationArg;
      orderBy?: OrderByValue;
      between?: BetweenArg | null;
      filters?: { case?: number | null } | null;
    },
    ctx,
  ) {
    const caseId = args.filters?.case;
    let items: readonly InvoiceRecord[] =
      caseId === null || caseId === undefined ? ctx.company.invoices : (ctx.company.invoicesByCase.get(caseId) ?? []);
    items = applyBetween(items, args.between, { date: (i) => i.date, createdat: (i) => i.createdAt }, ctx);
    return paginate(items, INVOICES, args, ctx);
  },
  users(_root, args: { pagination: PaginationArg }, ctx) {
    return paginate<UserRecord>(ctx.company.users, BY_ID, args, ctx);
  },
  hourTypes(_root, args: { pagination: PaginationArg; search?: SearchArg | null }, ctx) {
    return paginate<HourTypeRecord>(
      applySearch(ctx.company.hourTypes, args.search, { name: (t) => t.name }),
      BY_ID,
      args,
      ctx,
    );
  },
  products(_root, args: { pagination: PaginationArg; orderBy?: OrderByValue; search?: SearchArg | null }, ctx) {
    const items = applySearch(ctx.company.products, args.search, {
      name: (p) => p.name,
      productNumber: (p) => p.productNumber,
    });
    return paginate(items, PRODUCTS, args, ctx);
  },
  gpsEntries(_root, args: { pagination?: PaginationArg | null }, ctx) {
    return paginate<GpsEntryRecord>(ctx.company.gpsEntries, BY_ID, args, ctx);
  },
};

const MUTATION: Record<string, Resolver> = {
  updateCase(_root, args: { id: number; description?: string | null }, ctx) {
    ctx.mutationLog.push(JSON.stringify({ field: 'updateCase', companyId: ctx.company.id, args }));
    const found = knownCase(ctx, args.id, 'id', 'The selected id is invalid.');
    // The sandbox never changes its data: the "updated" case is a copy.
    return { ...found, description: args.description ?? found.description };
  },
};

const caseOf: Resolver = (row: { caseId: number }, _args, ctx) => ctx.company.casesById.get(row.caseId) ?? null;

const RESOLVERS: Record<string, Record<string, Resolver>> = {
  Query: QUERY,
  Mutation: MUTATION,
  Case: {
    // Shape "scalar": the status and case type are their text.
    status: (c: CaseRecord, _args, _ctx, info) =>
      isScalarType(getNamedType(info.returnType)) ? c.status.text : c.status,
    caseType: (c: CaseRecord, _args, _ctx, info) =>
      isScalarType(getNamedType(info.returnType)) ? c.caseType.text : c.caseType,
    subCases: (c: CaseRecord, _args, ctx) => c.subCaseIds.map((id) => ctx.company.casesById.get(id) ?? null),
  },
  Hour: { case: caseOf },
  SalesInvoice: { case: caseOf },
  CaseMaterial: { case: caseOf },
};

/** Attaches the resolvers, each wrapped so that switch `sqlErrorField` can fail any one field. */
function attachResolvers(schema: GraphQLSchema): GraphQLSchema {
  for (const type of Object.values(schema.getTypeMap())) {
    if (!isObjectType(type) || type.name.startsWith('__')) continue;
    for (const field of Object.values(type.getFields())) {
      const coordinate = `${type.name}.${field.name}`;
      const own = RESOLVERS[type.name]?.[field.name];
      const base: GraphQLFieldResolver<unknown, CasesContext> =
        own === undefined ? defaultFieldResolver : (source, args, ctx, info) => own(source, args, ctx, info);
      field.resolve = (source, args, ctx: CasesContext, info) => {
        if (ctx.switches.sqlErrorField === coordinate) throw new GraphQLError(SQL_ERROR_MESSAGE);
        return base(source, args, ctx, info);
      };
    }
  }
  return schema;
}

const schemas = new Map<string, GraphQLSchema>();

/** The executable schema of a mode with its shapes (built once per combination). */
export function casesSchema(
  mode: CasesSchemaMode,
  shapes: Readonly<CasesSchemaShapes> = DEFAULT_SCHEMA_SHAPES,
): GraphQLSchema {
  const key = `${mode}|${shapes.caseTexts}|${shapes.orderBy}|${shapes.hoursCaseFilter}`;
  let schema = schemas.get(key);
  if (schema === undefined) {
    schema = attachResolvers(buildSchema(casesSdl(mode, shapes)));
    schemas.set(key, schema);
  }
  return schema;
}

export interface CasesQueryRequest {
  mode: CasesSchemaMode;
  /** Default: DEFAULT_SCHEMA_SHAPES. */
  shapes?: Readonly<CasesSchemaShapes>;
  source: string;
  variableValues?: Record<string, unknown> | null;
  operationName?: string | null;
  context: CasesContext;
  /** false adds NoSchemaIntrospectionCustomRule to validation. */
  introspection: boolean;
}

/** Parses, validates and executes one request with graphql-js. */
export function executeCasesQuery(request: CasesQueryRequest): Promise<ExecutionResult> {
  return graphql({
    schema: casesSchema(request.mode, request.shapes),
    source: request.source,
    variableValues: request.variableValues ?? null,
    operationName: request.operationName ?? null,
    contextValue: request.context,
    rules: request.introspection ? specifiedRules : [...specifiedRules, NoSchemaIntrospectionCustomRule],
  });
}
