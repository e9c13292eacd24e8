// Where the real schema differs from the spec (upstreams/cases.md §3), in one place: which case
// fields exist, how the hour start-time column is spelled, and how sales invoices are read. It is
// learned from introspection once per connection (cached 10 minutes) and falls back to the public
// field names when introspection is disabled, so an optional field never fails a whole document.
import { createHash } from 'node:crypto';
import type { GetCaseResult } from '#generated/cases/types.ts';
import { ToolError } from '#runtime/handler-api/tool-error.ts';
import { runQuery, type CasesCallContext } from './graphql-client.ts';

export interface SchemaMap {
  /** Case fields the upstream has (top level and inside `economy`). */
  readonly caseFields: ReadonlySet<string>;
  readonly economyFields: ReadonlySet<string>;
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

interface TypeRef {
  kind: string;
  name: string | null;
  ofType?: TypeRef | null;
}

interface Field {
  name: string;
  type?: TypeRef;
  args?: Array<{ name: string; type: TypeRef }>;
}

const PUBLIC: SchemaMap = {
  caseFields: new Set(['id', 'caseNumber', 'description', 'status', 'caseType', 'customer', 'responsibleUser', 'economy']),
  economyFields: new Set(['hoursCostprice', 'hoursSalesprice', 'offer', 'revisedOffer', 'materialsCostprice']),
  hourStartColumn: 'startTime',
  invoices: { betweenColumn: 'date', caseFilterKey: 'case', amountField: 'amount', dateField: 'date', caseField: false },
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

const TYPE_REF = 'kind name ofType { kind name ofType { kind name ofType { kind name } } }';

const DISCOVER = `query CaseConnectorDiscovery {
  caseType: __type(name: "Case") { fields { name } }
  economyType: __type(name: "Economy") { fields { name } }
  hourColumns: __type(name: "HourBetweenColumn") { enumValues { name } }
  queryType: __type(name: "Query") { fields { name type { ${TYPE_REF} } args { name type { ${TYPE_REF} } } } }
}`;

const DESCRIBE_INVOICES = (between: string, filter: string, connection: string) => `query CaseConnectorInvoiceDiscovery {
  between: __type(name: ${JSON.stringify(between)}) { inputFields { name type { ${TYPE_REF} } } }
  filter: __type(name: ${JSON.stringify(filter)}) { inputFields { name } }
  connection: __type(name: ${JSON.stringify(connection)}) { fields { name type { ${TYPE_REF} } } }
}`;

const ENUM_VALUES = (name: string) => `query CaseConnectorEnum { e: __type(name: ${JSON.stringify(name)}) { enumValues { name } } }`;
const TYPE_FIELDS = (name: string) => `query CaseConnectorFields { t: __type(name: ${JSON.stringify(name)}) { fields { name } } }`;

async function discover(ctx: CasesCallContext): Promise<SchemaMap> {
  let root: { caseType: { fields: Field[] } | null; economyType: { fields: Field[] } | null; hourColumns: { enumValues: Array<{ name: string }> } | null; queryType: { fields: Field[] } | null };
  try {
    root = await runQuery(ctx, DISCOVER);
  } catch (error) {
    // A rejected key or a rate limit ends the call; anything else (introspection disabled) falls back.
    if (error instanceof ToolError && (error.code === 'key_rejected' || error.code === 'throttled')) throw error;
    ctx.log.info({ err: (error as Error).message }, 'schema introspection unavailable; using the public field names');
    return PUBLIC;
  }
  const caseFields = new Set((root.caseType?.fields ?? []).map((f) => f.name));
  const economyFields = new Set((root.economyType?.fields ?? []).map((f) => f.name));
  const hourColumns = (root.hourColumns?.enumValues ?? []).map((v) => v.name);
  const hourStartColumn = hourColumns.find((n) => /start/i.test(n)) ?? PUBLIC.hourStartColumn;
  let invoices = PUBLIC.invoices;
  const invoiceField = root.queryType?.fields.find((f) => f.name === 'salesInvoices');
  if (invoiceField) {
    const between = named(invoiceField.args?.find((a) => a.name === 'between')?.type);
    const filter = named(invoiceField.args?.find((a) => a.name === 'filters')?.type);
    const connection = named(invoiceField.type);
    if (connection) {
      try {
        const d = await runQuery<{ between: { inputFields: Field[] } | null; filter: { inputFields: Field[] } | null; connection: { fields: Field[] } | null }>(
          ctx,
          DESCRIBE_INVOICES(between ?? '-', filter ?? '-', connection),
        );
        const columnEnum = named(d.between?.inputFields.find((f) => f.name === 'field')?.type);
        const columns = columnEnum ? ((await runQuery<{ e: { enumValues: Array<{ name: string }> } | null }>(ctx, ENUM_VALUES(columnEnum))).e?.enumValues ?? []).map((v) => v.name) : [];
        const filterKeys = (d.filter?.inputFields ?? []).map((f) => f.name);
        const itemType = named(d.connection?.fields.find((f) => f.name === 'items')?.type);
        const itemFields = itemType ? ((await runQuery<{ t: { fields: Field[] } | null }>(ctx, TYPE_FIELDS(itemType))).t?.fields ?? []).map((f) => f.name) : [];
        invoices = {
          betweenColumn: columns.find((c) => /^(invoice_?)?date$/i.test(c)) ?? columns.find((c) => /date/i.test(c)) ?? null,
          caseFilterKey: filterKeys.find((k) => /^case(_?id)?s?$/i.test(k)) ?? null,
          amountField: itemFields.find((f) => /^(amount|total|totalAmount|amountTotal)$/i.test(f)) ?? 'amount',
          dateField: itemFields.find((f) => /^(invoice_?)?date$/i.test(f)) ?? null,
          caseField: itemFields.includes('case'),
        };
      } catch (error) {
        if (error instanceof ToolError && (error.code === 'key_rejected' || error.code === 'throttled')) throw error;
      }
    }
  }
  return { caseFields, economyFields, hourStartColumn, invoices, introspected: true };
}

export async function schemaMap(ctx: CasesCallContext): Promise<SchemaMap> {
  const key = cacheKey(ctx);
  const hit = cache.get(key);
  if (hit && ctx.now().getTime() - hit.at < TTL_MS) return hit.map;
  const map = await discover(ctx);
  if (cache.size > 1000) cache.clear();
  cache.set(key, { at: ctx.now().getTime(), map });
  return map;
}

/** Test hook. */
export function clearSchemaMaps(): void {
  cache.clear();
}

/** The case selection: spec fields where the upstream has them, their public sources otherwise. */
export function caseSelection(map: SchemaMap): string {
  const has = (f: string) => map.caseFields.has(f);
  const econ = ['hoursCostprice', 'hoursSalesprice', 'offer', 'revisedOffer', 'materialsCostprice', 'materialsSalesprice', 'expectedCoverageRatio', 'revenue'].filter((f) => map.economyFields.has(f));
  const parts = ['id', 'caseNumber'];
  if (has('description')) parts.push('description');
  if (has('status')) parts.push('status { text }');
  if (has('caseType')) parts.push('caseType { text }');
  if (has('customer')) parts.push('customer { name }');
  if (has('foreman')) parts.push('foreman { fullName }');
  if (has('responsibleUser')) parts.push('responsibleUser { fullName }');
  if (has('offerTotal')) parts.push('offerTotal');
  if (has('parentCaseId')) parts.push('parentCaseId');
  if (has('subCases')) parts.push('subCases { id }');
  if (has('economy') && econ.length > 0) parts.push(`economy { ${econ.join(' ')} }`);
  return parts.join(' ');
}

type Raw = Record<string, unknown> | null | undefined;
const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);
const obj = (v: unknown): Raw => (v && typeof v === 'object' ? (v as Record<string, unknown>) : null);

/** Upstream case → the spec's case object (spec-only fields from their sources, else null). */
export type CaseObject = NonNullable<GetCaseResult>;

export function toCase(raw: Record<string, unknown>): CaseObject {
  const economy = obj(raw.economy);
  const status = obj(raw.status);
  const caseType = obj(raw.caseType);
  const customer = obj(raw.customer);
  const foreman = obj(raw.foreman) ?? obj(raw.responsibleUser);
  const out: CaseObject = {
    id: Number(raw.id),
    caseNumber: raw.caseNumber === null || raw.caseNumber === undefined ? '' : String(raw.caseNumber),
    description: typeof raw.description === 'string' ? raw.description : null,
    status: status && typeof status.text === 'string' ? { text: status.text } : null,
    caseType: caseType && typeof caseType.text === 'string' ? { text: caseType.text } : null,
    customer: customer && typeof customer.name === 'string' ? { name: customer.name } : null,
    foreman: foreman && typeof foreman.fullName === 'string' ? { fullName: foreman.fullName } : null,
    offerTotal: num(raw.offerTotal) ?? num(economy?.revisedOffer) ?? num(economy?.offer),
  };
  if (typeof raw.parentCaseId === 'number') out.parentCaseId = raw.parentCaseId;
  out.subCases = Array.isArray(raw.subCases) ? raw.subCases.map((s) => ({ id: Number((s as { id: unknown }).id) })) : null;
  out.economy = economy
    ? {
        expectedCoverageRatio: num(economy.expectedCoverageRatio),
        revenue: num(economy.revenue),
        hoursSalesprice: num(economy.hoursSalesprice),
        hoursCostprice: num(economy.hoursCostprice),
        materialsSalesprice: num(economy.materialsSalesprice),
        materialsCostprice: num(economy.materialsCostprice),
      }
    : null;
  return out;
}
