// The Business Central sandbox's API below `{url}/v2.0[/{tenant}]/{env}/api/v2.0`: the service
// document, $metadata, environment-level subscriptions, companies, and the company-scoped entity
// sets with their keys, navigations and $count. OData segments (`companies({id})`) carry their key
// in the segment, so this is a chain of segment parsers rather than a table of path templates.
import {
  ERP_ENVIRONMENT_SETS,
  ERP_SERVICE_DOCUMENT_SETS,
  type ErpCompany,
  type ErpStoredRow,
  erpEtag,
  erpSchema,
} from './data.ts';
import {
  companyOf,
  findByKey,
  GUID,
  guidKey,
  metadataXml,
  notFoundSegment,
  parseSegment,
  sendCollection,
  sendCount,
  sendEntity,
  sendODataJson,
} from './answers.ts';
import { type ApiScope, HttpError, type ReadRequest } from './state.ts';

function serveSubscriptions(
  q: ReadRequest,
  scope: ApiScope,
  rest: readonly string[],
  key: string | undefined,
  context: string,
): void {
  const schema = erpSchema('subscriptions')!;
  const rows = q.s.data.subscriptions.get(scope.environment) ?? [];
  const source = (set: string) => (set === 'subscriptions' ? rows : []);
  if (key === undefined && rest.length === 1) {
    sendCollection(q, schema, rows, `${context}subscriptions`, source);
    return;
  }
  if (key !== undefined && rest.length === 1) {
    const quoted = /^'((?:[^']|'')*)'$/.exec(key);
    if (quoted === null) {
      if (GUID.test(key))
        throw new HttpError(
          404,
          'Internal_RecordNotFound',
          `The subscription does not exist. Identification fields and values: subscriptionId='${key}'.`,
        );
      throw new HttpError(
        400,
        'BadRequest',
        `Bad Request - Error in query syntax: the key '${key}' of 'subscriptions' is a string and must be quoted.`,
      );
    }
    const wanted = quoted[1]!.replace(/''/g, "'");
    const row = rows.find((r) => r.fields.subscriptionId === wanted);
    if (row === undefined)
      throw new HttpError(
        404,
        'Internal_RecordNotFound',
        `The subscription does not exist. Identification fields and values: subscriptionId='${wanted}'.`,
      );
    sendEntity(q, schema, row, `${context}subscriptions`, source);
    return;
  }
  throw notFoundSegment(rest[1] ?? rest[0]!);
}

/** `Data-Access-Intent: ReadOnly` on the switched set answers 400. */
function checkReadOnlyIntent(q: ReadRequest, set: string): void {
  const rejected = q.s.switches.readOnlyIntentRejectedSet;
  if (rejected === null || rejected.toLowerCase() !== set.toLowerCase()) return;
  const intent = q.req.headers['data-access-intent'];
  if (typeof intent === 'string' && intent.trim().toLowerCase() === 'readonly') {
    q.s.stats.readOnlyIntentRejections++;
    throw new HttpError(
      400,
      'BadRequest',
      `The Data-Access-Intent header value 'ReadOnly' is not supported for the entity set '${set}'.`,
    );
  }
}

/** `companies({id})/{set}[({id})[/{navigation}]]` and `…/{set}/$count`. */
function serveCompanySet(q: ReadRequest, company: ErpCompany, rest: readonly string[], context: string): void {
  const second = parseSegment(rest[1]!);
  const schema = erpSchema(second.name);
  if (schema === undefined || ERP_ENVIRONMENT_SETS.has(second.name)) throw notFoundSegment(rest[1]!);
  checkReadOnlyIntent(q, second.name);
  const source = (set: string): readonly ErpStoredRow[] => company.sets.get(set) ?? [];
  const rows = source(second.name);
  const setContext = `${context}companies(${company.row.id})/${second.name}`;
  if (second.key === undefined) {
    if (rest.length === 2) {
      sendCollection(q, schema, rows, setContext, source);
      return;
    }
    if (rest.length === 3 && rest[2] === '$count') {
      sendCount(q, schema, rows);
      return;
    }
    throw notFoundSegment(rest[2]!);
  }
  const row = findByKey(rows, schema, guidKey(second.key, second.name));
  if (rest.length === 2) {
    sendEntity(q, schema, row, setContext, source);
    return;
  }
  const navName = rest[2]!;
  const nav = schema.navigations[navName];
  if (nav === undefined || rest.length > 3) throw notFoundSegment(navName);
  const target = erpSchema(nav.target)!;
  const parentValue = row.fields[nav.parentField];
  const related = source(nav.target).filter((child) => child.fields[nav.childField] === parentValue);
  const navContext = `${setContext}(${String(row.fields[schema.key])})/${navName}`;
  if (nav.many) {
    sendCollection(q, target, related, navContext, source);
    return;
  }
  if (related[0] === undefined)
    throw new HttpError(404, 'Internal_RecordNotFound', `The ${target.type} does not exist.`);
  sendEntity(q, target, related[0], navContext, source);
}

export function serveApi(q: ReadRequest, scope: ApiScope, rest: readonly string[]): void {
  if (rest.length === 0) {
    sendODataJson(q.res, 200, {
      '@odata.context': `${scope.base}/$metadata`,
      value: ERP_SERVICE_DOCUMENT_SETS.map((name) => ({ name, kind: 'EntitySet', url: name })),
    });
    return;
  }
  if (rest.length === 1 && rest[0] === '$metadata') {
    const xml = metadataXml();
    q.res.writeHead(200, {
      'content-type': 'application/xml; charset=utf-8',
      'content-length': Buffer.byteLength(xml),
      'odata-version': '4.0',
    });
    q.res.end(xml);
    return;
  }
  const first = parseSegment(rest[0]!);
  const context = `${scope.base}/$metadata#`;
  if (first.name === 'subscriptions') {
    serveSubscriptions(q, scope, rest, first.key, context);
    return;
  }
  if (first.name !== 'companies') {
    if (ERP_SERVICE_DOCUMENT_SETS.includes(first.name))
      throw new HttpError(
        400,
        'Internal_CompanyNotFound',
        `The entity set '${first.name}' is company-scoped: the request URL needs a companies({id}) segment.`,
      );
    throw notFoundSegment(rest[0]!);
  }
  const companies = erpSchema('companies')!;
  const companyRows = q.s.data.companies
    .filter((c) => c.environment === scope.environment)
    .map((c) => ({ fields: c.row, etag: erpEtag(c.row) }));
  if (first.key === undefined) {
    if (rest.length === 1) {
      sendCollection(q, companies, companyRows, `${context}companies`, () => []);
      return;
    }
    throw notFoundSegment(rest[1]!);
  }
  const company = companyOf(q.s, scope, first.key);
  if (rest.length === 1) {
    sendEntity(q, companies, companyRows.find((r) => r.fields.id === company.row.id)!, `${context}companies`, () => []);
    return;
  }
  serveCompanySet(q, company, rest, context);
}
