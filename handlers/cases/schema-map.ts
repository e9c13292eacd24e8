// Where the real schema differs from the spec (upstreams/cases.md §3), in one place: which case
// fields exist, whether `status` and `caseType` are objects or scalars, whether `cases(orderBy:)`
// takes one object or a list, which type the hours `case` filter takes, how the hour start-time
// column is spelled, and how sales invoices are read. It is learned from introspection once per
// connection (cached 10 minutes). When introspection is disabled the public names and shapes are
// used, and the enum spellings and the shapes are learned from the upstream's own validation
// answer (the other known form is tried once and remembered). A fallback taken because discovery
// failed (a 500, a timeout, garbage) serves that one call only and is never cached, so a transient
// failure cannot poison the calls after it.
import { createHash } from 'node:crypto';
import { failureCode } from '#runtime/handler-api/tool-error.ts';
import { runQuery, UpstreamGraphQLError, type CasesCallContext } from './graphql-client.ts';

export interface SchemaMap {
  /** Case fields the upstream has (top level and inside `economy`). */
  readonly caseFields: ReadonlySet<string>;
  readonly economyFields: ReadonlySet<string>;
  /** Case fields among `status` and `caseType` typed as a scalar or enum (selected bare, not `{ text }`). */
  readonly scalarCaseFields: ReadonlySet<string>;
  /** How `cases` declares `orderBy`: one input object, a list of them, or no such argument. */
  readonly casesOrderBy: 'object' | 'list' | 'absent';
  /** The type of `hours(filters: { case })`: a scalar id, or an input object carrying the id. */
  readonly hoursCaseFilter: HoursCaseFilter;
  /** Enum literal of HourBetweenColumn for the registration start (`startTime`, `START_TIME`, …). */
  readonly hourStartColumn: string;
  readonly invoices: {
    readonly betweenColumn: string | null;
    readonly caseFilterKey: string | null;
    readonly amountField: string;
    readonly dateField: string | null;
    readonly caseField: boolean;
  };
  readonly introspected: boolean;
}

/**
 * `case: Int` (the public mock) or `case: { id, includeSubcases }` (a public client's input
 * object); `idType` is the scalar the id variable is declared with.
 */
export type HoursCaseFilter =
  | { readonly kind: 'scalar'; readonly idType: string }
  | {
      readonly kind: 'object';
      readonly idField: string;
      readonly idType: string;
      readonly subcasesField: string | null;
    };

interface TypeRef {
  kind: string;
  name: string | null;
  ofType?: TypeRef | null;
  inputFields?: Field[] | null;
}

interface Field {
  name: string;
  type?: TypeRef;
  args?: Array<{ name: string; type: TypeRef }>;
}

const PUBLIC: SchemaMap = {
  caseFields: new Set([
    'id',
    'caseNumber',
    'description',
    'status',
    'caseType',
    'customer',
    'responsibleUser',
    'economy',
  ]),
  economyFields: new Set(['hoursCostprice', 'hoursSalesprice', 'offer', 'revisedOffer', 'materialsCostprice']),
  scalarCaseFields: new Set(),
  casesOrderBy: 'list',
  hoursCaseFilter: { kind: 'scalar', idType: 'Int' },
  hourStartColumn: 'startTime',
  invoices: {
    betweenColumn: 'date',
    caseFilterKey: 'case',
    amountField: 'amount',
    dateField: 'date',
    caseField: false,
  },
  introspected: false,
};

const TTL_MS = 10 * 60_000;
const cache = new Map<string, { at: number; map: SchemaMap }>();

function cacheKey(ctx: CasesCallContext): string {
  const secret = ctx.credential?.kind === 'api_key' ? ctx.credential.apiKey : '';
  // The key is hashed: a cache entry never holds a credential.
  return `${ctx.accountId}|${ctx.instanceId}|${createHash('sha256').update(secret).digest('hex').slice(0, 16)}`;
}

const named = (t: TypeRef | null | undefined): string | null => (!t ? null : (t.name ?? named(t.ofType)));
/** The named type under the wrappers (NON_NULL, LIST). */
const namedRef = (t: TypeRef | null | undefined): TypeRef | null => (!t ? null : t.name ? t : namedRef(t.ofType));
/** Whether a type is a list once an outer NON_NULL is taken off. */
const isList = (t: TypeRef | null | undefined): boolean =>
  t?.kind === 'NON_NULL' ? isList(t.ofType) : t?.kind === 'LIST';
/** A scalar name usable in a variable declaration. */
const scalarName = (t: TypeRef | null | undefined): string | null => {
  const n = namedRef(t);
  return n && n.kind === 'SCALAR' && n.name && /^[A-Za-z_][A-Za-z0-9_]*$/.test(n.name) ? n.name : null;
};

const TYPE_REF = 'kind name ofType { kind name ofType { kind name ofType { kind name } } }';

/** Input fields with their types, and the input fields of an input-object type one level down. */
const INPUT_FIELDS =
  `inputFields { name type { kind name inputFields { name type { ${TYPE_REF} } } ` +
  `ofType { kind name inputFields { name type { ${TYPE_REF} } } } } }`;

const DISCOVER = `query CaseConnectorDiscovery {
  caseType: __type(name: "Case") { fields { name type { ${TYPE_REF} } } }
  hoursFilter: __type(name: "HoursFilterInput") { name ${INPUT_FIELDS} }
  economyType: __type(name: "Economy") { fields { name } }
  hourColumns: __type(name: "HourBetweenColumn") { enumValues { name } }
  queryType: __type(name: "Query") { fields { name type { ${TYPE_REF} } args { name type { ${TYPE_REF} } } } }
}`;

const DESCRIBE_INVOICES = (
  between: string,
  filter: string,
  connection: string,
) => `query CaseConnectorInvoiceDiscovery {
  between: __type(name: ${JSON.stringify(between)}) { inputFields { name type { ${TYPE_REF} } } }
  filter: __type(name: ${JSON.stringify(filter)}) { inputFields { name } }
  connection: __type(name: ${JSON.stringify(connection)}) { fields { name type { ${TYPE_REF} } } }
}`;

const INPUT_TYPE = (name: string) =>
  `query CaseConnectorInput { t: __type(name: ${JSON.stringify(name)}) { name ${INPUT_FIELDS} } }`;

const ENUM_VALUES = (name: string) =>
  `query CaseConnectorEnum { e: __type(name: ${JSON.stringify(name)}) { enumValues { name } } }`;
const TYPE_FIELDS = (name: string) =>
  `query CaseConnectorFields { t: __type(name: ${JSON.stringify(name)}) { fields { name } } }`;

/** A rejected key or a rate limit ends the call; discovery never swallows them. */
const fatal = (error: unknown) => failureCode(error) === 'key_rejected' || failureCode(error) === 'throttled';

/** The upstream's answer that introspection is off (graphql-js, Lighthouse: "... introspection ..."). */
const introspectionDisabled = (error: unknown) =>
  error instanceof UpstreamGraphQLError && /introspection/i.test(error.message);

/** A discovered map, and whether it may be cached (false for a fallback taken after a failure). */
interface Discovery {
  readonly map: SchemaMap;
  readonly cacheable: boolean;
}

async function discover(ctx: CasesCallContext): Promise<Discovery> {
  try {
    return await introspect(ctx);
  } catch (error) {
    if (fatal(error)) throw error;
    // Introspection switched off is the upstream's answer, not a failure: the public names are
    // cached and the enum spellings learned from validation answers. Anything else (a 500, a
    // timeout, garbage) falls back for this call only.
    const disabled = introspectionDisabled(error);
    ctx.log.info(
      { err: (error as Error).message, cached: disabled },
      'schema introspection unavailable; using the public field names',
    );
    return { map: PUBLIC, cacheable: disabled };
  }
}

async function introspect(ctx: CasesCallContext): Promise<Discovery> {
  const root = await runQuery<{
    caseType: { fields: Field[] } | null;
    hoursFilter?: { name: string; inputFields: Field[] | null } | null;
    economyType: { fields: Field[] } | null;
    hourColumns: { enumValues: Array<{ name: string }> } | null;
    queryType: { fields: Field[] } | null;
  }>(ctx, DISCOVER);
  const caseFieldList = root.caseType?.fields ?? [];
  const caseFields = new Set(caseFieldList.map((f) => f.name));
  // A field whose type the answer leaves out keeps the public object shape.
  const scalarCaseFields = new Set(
    caseFieldList
      .filter(
        (f) =>
          (f.name === 'status' || f.name === 'caseType') && ['SCALAR', 'ENUM'].includes(namedRef(f.type)?.kind ?? ''),
      )
      .map((f) => f.name),
  );
  const economyFields = new Set((root.economyType?.fields ?? []).map((f) => f.name));
  const hourColumns = (root.hourColumns?.enumValues ?? []).map((v) => v.name);
  const hourStartColumn = hourColumns.find((n) => /start/i.test(n)) ?? PUBLIC.hourStartColumn;
  let invoices = PUBLIC.invoices;
  let cacheable = true;
  const casesField = root.queryType?.fields?.find((f) => f.name === 'cases');
  const orderByArg = casesField?.args?.find((a) => a.name === 'orderBy');
  const casesOrderBy = !casesField
    ? PUBLIC.casesOrderBy
    : !orderByArg
      ? 'absent'
      : isList(orderByArg.type)
        ? 'list'
        : 'object';
  let hoursCaseFilter = PUBLIC.hoursCaseFilter;
  const filterType =
    named(root.queryType?.fields?.find((f) => f.name === 'hours')?.args?.find((a) => a.name === 'filters')?.type) ??
    root.hoursFilter?.name ??
    null;
  if (filterType) {
    try {
      const described =
        root.hoursFilter?.name === filterType
          ? root.hoursFilter
          : (await runQuery<{ t: { name: string; inputFields: Field[] | null } | null }>(ctx, INPUT_TYPE(filterType)))
              .t;
      hoursCaseFilter = caseFilterOf(described?.inputFields?.find((f) => f.name === 'case')?.type);
    } catch (error) {
      if (fatal(error)) throw error;
      // The public `case: Int` for this call only; the next call asks again.
      cacheable = false;
    }
  }
  const invoiceField = root.queryType?.fields?.find((f) => f.name === 'salesInvoices');
  if (invoiceField) {
    const between = named(invoiceField.args?.find((a) => a.name === 'between')?.type);
    const filter = named(invoiceField.args?.find((a) => a.name === 'filters')?.type);
    const connection = named(invoiceField.type);
    if (connection) {
      try {
        const d = await runQuery<{
          between: { inputFields: Field[] } | null;
          filter: { inputFields: Field[] } | null;
          connection: { fields: Field[] } | null;
        }>(ctx, DESCRIBE_INVOICES(between ?? '-', filter ?? '-', connection));
        const columnEnum = named(d.between?.inputFields.find((f) => f.name === 'field')?.type);
        const columns = columnEnum
          ? (
              (await runQuery<{ e: { enumValues: Array<{ name: string }> } | null }>(ctx, ENUM_VALUES(columnEnum))).e
                ?.enumValues ?? []
            ).map((v) => v.name)
          : [];
        const filterKeys = (d.filter?.inputFields ?? []).map((f) => f.name);
        const itemType = named(d.connection?.fields.find((f) => f.name === 'items')?.type);
        const itemFields = itemType
          ? ((await runQuery<{ t: { fields: Field[] } | null }>(ctx, TYPE_FIELDS(itemType))).t?.fields ?? []).map(
              (f) => f.name,
            )
          : [];
        invoices = {
          betweenColumn:
            columns.find((c) => /^(invoice_?)?date$/i.test(c)) ?? columns.find((c) => /date/i.test(c)) ?? null,
          caseFilterKey: filterKeys.find((k) => /^case(_?id)?s?$/i.test(k)) ?? null,
          amountField: itemFields.find((f) => /^(amount|total|totalAmount|amountTotal)$/i.test(f)) ?? 'amount',
          dateField: itemFields.find((f) => /^(invoice_?)?date$/i.test(f)) ?? null,
          caseField: itemFields.includes('case'),
        };
      } catch (error) {
        if (fatal(error)) throw error;
        // The public invoice names for this call only; the next call asks again.
        cacheable = false;
      }
    }
  }
  return {
    map: {
      caseFields,
      economyFields,
      scalarCaseFields,
      casesOrderBy,
      hoursCaseFilter,
      hourStartColumn,
      invoices,
      introspected: true,
    },
    cacheable,
  };
}

/** The shape of the hours `case` filter from its input-field type (the public `Int` when unclear). */
function caseFilterOf(type: TypeRef | undefined): HoursCaseFilter {
  const scalar = scalarName(type);
  if (scalar) return { kind: 'scalar', idType: scalar };
  const input = namedRef(type);
  if (input?.kind !== 'INPUT_OBJECT') return PUBLIC.hoursCaseFilter;
  const fields = input.inputFields ?? [];
  const id = fields.find((f) => f.name === 'id') ?? fields.find((f) => /^case_?id$/i.test(f.name));
  const idType = scalarName(id?.type);
  if (!id || !idType) return PUBLIC.hoursCaseFilter;
  const subcases = fields.find((f) => /^include_?sub_?cases$/i.test(f.name) && namedRef(f.type)?.name === 'Boolean');
  return { kind: 'object', idField: id.name, idType, subcasesField: subcases?.name ?? null };
}

export async function schemaMap(ctx: CasesCallContext): Promise<SchemaMap> {
  const key = cacheKey(ctx);
  const hit = cache.get(key);
  if (hit && ctx.now().getTime() - hit.at < TTL_MS) return hit.map;
  const { map, cacheable } = await discover(ctx);
  if (!cacheable) return map;
  if (cache.size > 1000) cache.clear();
  cache.set(key, { at: ctx.now().getTime(), map });
  return map;
}

/**
 * Known spellings of the enum literals the fixed tools inline, for an upstream whose schema could
 * not be read (upstreams/cases.md §3 #3, #5: `startTime` in a mock, `START_TIME` probed elsewhere).
 */
const SPELLINGS = {
  hourStartColumn: ['startTime', 'START_TIME'],
  invoiceBetweenColumn: ['date', 'DATE'],
} as const satisfies Record<string, readonly string[]>;

export type SpellingSlot = keyof typeof SPELLINGS;

function spelling(map: SchemaMap, slot: SpellingSlot): string | null {
  return slot === 'hourStartColumn' ? map.hourStartColumn : map.invoices.betweenColumn;
}

function respelled(map: SchemaMap, slot: SpellingSlot, value: string): SchemaMap {
  return slot === 'hourStartColumn'
    ? { ...map, hourStartColumn: value }
    : { ...map, invoices: { ...map.invoices, betweenColumn: value } };
}

/**
 * Runs `read` with the map's spelling of `slot`. When the map was not introspected and the
 * upstream's answer names that literal (an unknown enum value), the other known spelling is tried
 * once; if it works it is remembered for the connection (when its map is cached).
 */
export async function withKnownSpelling<T>(
  ctx: CasesCallContext,
  map: SchemaMap,
  slot: SpellingSlot,
  read: (map: SchemaMap) => Promise<T>,
): Promise<T> {
  try {
    return await read(map);
  } catch (error) {
    const current = spelling(map, slot);
    if (
      map.introspected ||
      current === null ||
      !(error instanceof UpstreamGraphQLError) ||
      !new RegExp(`\\b${current}\\b`).test(error.message)
    )
      throw error;
    const other = SPELLINGS[slot].find((v) => v !== current);
    if (other === undefined) throw error;
    const result = await read(respelled(map, slot, other));
    const entry = cache.get(cacheKey(ctx));
    if (entry && !entry.map.introspected) entry.map = respelled(entry.map, slot, other);
    ctx.log.info({ slot, spelling: other }, 'enum spelling learned from the upstream validation answer');
    return result;
  }
}

const BUILT_IN_SCALARS = new Set(['Int', 'Float', 'String', 'Boolean', 'ID']);

/**
 * The shapes an upstream's validation answer reveals, for a map that was not introspected (the
 * messages of graphql-js and graphql-php): a `status`/`caseType` that "must not have a selection"
 * is a scalar, one that "must have a selection of subfields" an object; a `$caseId` "used in
 * position expecting type" X makes the hours case filter an X (a built-in scalar, else an input
 * object whose `id` carries the case). null when the answer names none of them.
 */
function shapesFromAnswer(map: SchemaMap, message: string): SchemaMap | null {
  const scalar = new Set(map.scalarCaseFields);
  for (const m of message.matchAll(/Field "(status|caseType)" must not have a selection/g)) scalar.add(m[1]!);
  for (const m of message.matchAll(/Field "(status|caseType)" of type "[^"]*" must have a selection of subfields/g))
    scalar.delete(m[1]!);
  let filter = map.hoursCaseFilter;
  const position =
    /Variable "\$caseId" of type "[^"]*" used in position expecting type "([A-Za-z_][A-Za-z0-9_]*)!?"/.exec(message);
  if (position) {
    const expected = position[1]!;
    // The id of an input object is assumed to be `id: Int` (the public client's `{ id, includeSubcases }`);
    // whether it has `includeSubcases` is unknown without introspection, so it is not sent.
    filter = BUILT_IN_SCALARS.has(expected)
      ? { kind: 'scalar', idType: expected }
      : { kind: 'object', idField: 'id', idType: 'Int', subcasesField: null };
  }
  const sameTexts = scalar.size === map.scalarCaseFields.size && [...scalar].every((f) => map.scalarCaseFields.has(f));
  const sameFilter = JSON.stringify(filter) === JSON.stringify(map.hoursCaseFilter);
  return sameTexts && sameFilter ? null : { ...map, scalarCaseFields: scalar, hoursCaseFilter: filter };
}

/**
 * Runs `read` with the map's shapes of `status`/`caseType` and of the hours case filter. When the
 * map was not introspected (introspection disabled) and the upstream's validation answer reveals
 * another shape, `read` is run once more with it, and the shape is remembered for the connection
 * (when its map is cached). An introspected map is never second-guessed.
 */
export async function withLearnedShapes<T>(
  ctx: CasesCallContext,
  map: SchemaMap,
  read: (map: SchemaMap) => Promise<T>,
): Promise<T> {
  try {
    return await read(map);
  } catch (error) {
    if (map.introspected || !(error instanceof UpstreamGraphQLError)) throw error;
    const learned = shapesFromAnswer(map, error.message);
    if (!learned) throw error;
    const result = await read(learned);
    const entry = cache.get(cacheKey(ctx));
    if (entry && !entry.map.introspected)
      entry.map = {
        ...entry.map,
        scalarCaseFields: learned.scalarCaseFields,
        hoursCaseFilter: learned.hoursCaseFilter,
      };
    ctx.log.info(
      { scalarCaseFields: [...learned.scalarCaseFields], hoursCaseFilter: learned.hoursCaseFilter.kind },
      'schema shapes learned from the upstream validation answer',
    );
    return result;
  }
}

/** Test hook. */
export function clearSchemaMaps(): void {
  cache.clear();
}

/** The case selection: spec fields where the upstream has them, their public sources otherwise. */
export function caseSelection(map: SchemaMap): string {
  const has = (f: string) => map.caseFields.has(f);
  const econ = [
    'hoursCostprice',
    'hoursSalesprice',
    'offer',
    'revisedOffer',
    'materialsCostprice',
    'materialsSalesprice',
    'expectedCoverageRatio',
    'revenue',
  ].filter((f) => map.economyFields.has(f));
  const parts = ['id', 'caseNumber'];
  if (has('description')) parts.push('description');
  for (const f of ['status', 'caseType']) if (has(f)) parts.push(map.scalarCaseFields.has(f) ? f : `${f} { text }`);
  if (has('customer')) parts.push('customer { name }');
  if (has('foreman')) parts.push('foreman { fullName }');
  if (has('responsibleUser')) parts.push('responsibleUser { fullName }');
  if (has('offerTotal')) parts.push('offerTotal');
  if (has('parentCaseId')) parts.push('parentCaseId');
  if (has('subCases')) parts.push('subCases { id }');
  if (has('economy') && econ.length > 0) parts.push(`economy { ${econ.join(' ')} }`);
  return parts.join(' ');
}

/**
 * The `orderBy` argument of `cases` (with its leading comma), in the official guide's single-object
 * form `orderBy: { field: "updatedAt", direction: DESC }`: it validates whether the schema declares
 * one `OrderByInput` or a list of them (a single value is coerced to a one-element list), which a
 * variable could not do. Nothing when `cases` takes no `orderBy`. `field` and `direction` come from
 * the tools' enums.
 */
export function casesOrderBy(map: SchemaMap, field: 'updatedAt' | 'id', direction: 'ASC' | 'DESC'): string {
  return map.casesOrderBy === 'absent' ? '' : `, orderBy: { field: ${JSON.stringify(field)}, direction: ${direction} }`;
}

/** The hours `filters` value for one case, and the type its `$caseId` variable is declared with. */
export function hoursCaseFilter(map: SchemaMap): { value: string; variableType: string } {
  const f = map.hoursCaseFilter;
  if (f.kind === 'scalar') return { value: '{ case: $caseId }', variableType: `${f.idType}!` };
  // Only the case itself, as with the scalar filter: sub-cases are excluded explicitly.
  return {
    value: `{ case: { ${f.idField}: $caseId${f.subcasesField ? `, ${f.subcasesField}: false` : ''} } }`,
    variableType: `${f.idType}!`,
  };
}
