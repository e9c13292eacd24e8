// The Business Central sandbox's answers: OData JSON (`OData-Version: 4.0` after the length), errors
// with a CorrelationId, HTML fault pages, $metadata, path segments and keys, skip tokens, and the
// collection, entity and $count answers.
import { createHmac, randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { type JsonStyle, sendJson, sendText } from '../http-kit.ts';
import {
  ERP_SERVICE_DOCUMENT_SETS,
  type ErpCompany,
  type ErpEntitySchema,
  type ErpStoredRow,
  erpSchema,
} from './data.ts';
import { ODataError, type QueryOptions, parseOptions, selectRows, shapeRow } from './odata.ts';
import { type ApiScope, type ErpState, HttpError, type ReadRequest } from './state.ts';
import { ERP_MAX_PAGE_SIZE } from './switches.ts';

const JSON_TYPE =
  'application/json; odata.metadata=minimal; odata.streaming=true; IEEE754Compatible=false; charset=utf-8';
export const GUID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;

/** How Business Central spells its JSON content type. */
const ODATA_JSON: JsonStyle = { contentType: JSON_TYPE };

/** A JSON answer as Business Central sends it: content-type, content-length, `OData-Version: 4.0`, then `headers`. */
export function sendODataJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Readonly<Record<string, string>> = {},
): void {
  sendJson(res, status, body, { 'odata-version': '4.0', ...headers }, ODATA_JSON);
}

export function sendError(
  res: ServerResponse,
  status: number,
  code: string,
  message: string,
  headers: Record<string, string> = {},
): void {
  const correlationId = randomUUID();
  sendODataJson(
    res,
    status,
    { error: { code, message: `${message}  CorrelationId: ${correlationId}.` } },
    { 'request-id': correlationId, ...headers },
  );
}

export function sendHtml(res: ServerResponse, status: number, html: string): void {
  res.writeHead(status, { 'content-type': 'text/html; charset=utf-8', 'content-length': Buffer.byteLength(html) });
  res.end(html);
}

/** Query values as OData shows them: `$` and `,` stay readable, everything else percent-encoded. */
function encodeQueryValue(value: string): string {
  return encodeURIComponent(value).replace(/%24/g, '$').replace(/%2C/g, ',');
}

export function notFoundSegment(segment: string): HttpError {
  return new HttpError(404, 'BadRequest_ResourceNotFound', `Resource not found for the segment '${segment}'.`);
}

const SEGMENT = /^([A-Za-z][A-Za-z0-9]*)(?:\((.*)\))?$/s;

export function parseSegment(segment: string): { name: string; key: string | undefined } {
  const m = SEGMENT.exec(segment);
  if (m === null)
    throw new HttpError(
      404,
      'BadRequest_NotFound',
      `No HTTP resource was found that matches the request URI segment '${segment}'.`,
    );
  return { name: m[1]!, key: m[2] };
}

export function guidKey(key: string, set: string): string {
  if (!GUID.test(key))
    throw new HttpError(
      400,
      'BadRequest',
      `Bad Request - Error in query syntax: the key '${key}' of '${set}' ` +
        'is not a valid GUID (GUIDs are written unquoted).',
    );
  return key.toLowerCase();
}

function edmType(t: string): string {
  return (
    {
      string: 'Edm.String',
      number: 'Edm.Decimal',
      boolean: 'Edm.Boolean',
      date: 'Edm.Date',
      datetime: 'Edm.DateTimeOffset',
      guid: 'Edm.Guid',
    }[t] ?? 'Edm.String'
  );
}

export function metadataXml(): string {
  const types: string[] = [];
  const sets: string[] = [];
  for (const set of ERP_SERVICE_DOCUMENT_SETS) {
    const schema = erpSchema(set)!;
    const props = Object.entries(schema.fields)
      .map(
        ([name, t]) =>
          `<Property Name="${name}" Type="${edmType(t)}"${name === schema.key ? ' Nullable="false"' : ''} />`,
      )
      .join('');
    const navs = Object.entries(schema.navigations)
      .map(([name, nav]) => {
        const target = erpSchema(nav.target)!;
        return (
          `<NavigationProperty Name="${name}" ` +
          `Type="${nav.many ? `Collection(Microsoft.NAV.${target.type})` : `Microsoft.NAV.${target.type}`}" />`
        );
      })
      .join('');
    types.push(
      `<EntityType Name="${schema.type}"><Key><PropertyRef Name="${schema.key}" /></Key>${props}${navs}</EntityType>`,
    );
    sets.push(`<EntitySet Name="${set}" EntityType="Microsoft.NAV.${schema.type}" />`);
  }
  return (
    '<?xml version="1.0" encoding="utf-8"?>' +
    '<edmx:Edmx Version="4.0" xmlns:edmx="http://docs.oasis-open.org/odata/ns/edmx"><edmx:DataServices>' +
    `<Schema Namespace="Microsoft.NAV" xmlns="http://docs.oasis-open.org/odata/ns/edm">${types.join('')}` +
    `<EntityContainer Name="NAV">${sets.join('')}</EntityContainer></Schema></edmx:DataServices></edmx:Edmx>`
  );
}

export const BAD_GATEWAY_PAGE =
  '<!DOCTYPE html>\n<html><head><title>502 - Web server received an invalid ' +
  'response while acting as a gateway or proxy server.</title></head>' +
  '<body><h1>Server Error</h1><h2>502 - Web server received an invalid response ' +
  'while acting as a gateway or proxy server.</h2></body></html>\n';
export const NON_JSON_PAGE =
  '<!DOCTYPE html>\n<html><head><title>Sign in to your ' +
  'account</title></head><body><form method="post" action="https://login.microsoftonline.com/">' +
  '<p>Sign in to continue to Dynamics 365 Business Central.</p></form></body></html>\n';

export function mintSkipToken(s: ErpState, offset: number, lastKey: unknown): string {
  const body = Buffer.from(JSON.stringify({ o: offset, k: lastKey })).toString('base64url');
  const tag = createHmac('sha256', s.skipTokenKey).update(body).digest('base64url').slice(0, 16);
  return `${body}.${tag}`;
}

export function readSkipToken(s: ErpState, token: string): number {
  const [body, tag, extra] = token.split('.');
  const invalid = new HttpError(400, 'BadRequest', 'The $skiptoken is not valid.');
  if (body === undefined || tag === undefined || extra !== undefined) throw invalid;
  if (createHmac('sha256', s.skipTokenKey).update(body).digest('base64url').slice(0, 16) !== tag) throw invalid;
  const parsed = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as { o?: unknown };
  if (typeof parsed.o !== 'number' || !Number.isInteger(parsed.o) || parsed.o < 0) throw invalid;
  return parsed.o;
}

export function maxPageSize(req: IncomingMessage): number | undefined {
  const prefer = req.headers.prefer;
  if (prefer === undefined) return undefined;
  for (const part of (Array.isArray(prefer) ? prefer.join(',') : prefer).split(',')) {
    const m = /^\s*odata\.maxpagesize\s*=\s*"?(\d+)"?\s*$/i.exec(part);
    if (m !== null && Number(m[1]) > 0) return Math.min(Number(m[1]), ERP_MAX_PAGE_SIZE);
  }
  return undefined;
}

export function parsedOptions(q: ReadRequest, schema: ErpEntitySchema): QueryOptions {
  try {
    return parseOptions(q.query, schema);
  } catch (error) {
    if (error instanceof ODataError) throw new HttpError(error.status, error.code, error.message);
    throw error;
  }
}

export function sendCollection(
  q: ReadRequest,
  schema: ErpEntitySchema,
  rows: readonly ErpStoredRow[],
  context: string,
  source: (set: string) => readonly ErpStoredRow[],
): void {
  const options = parsedOptions(q, schema);
  const skipToken = q.query.$skiptoken;
  let offset = skipToken !== undefined ? readSkipToken(q.s, skipToken) : (options.skip ?? 0);
  if (skipToken !== undefined && options.skip !== undefined) offset = Math.max(offset, options.skip);
  const all = selectRows(rows, options);
  const preferred = maxPageSize(q.req);
  const headers: Record<string, string> =
    preferred !== undefined ? { 'preference-applied': `odata.maxpagesize=${preferred}` } : {};
  let page: ErpStoredRow[];
  let nextLink: string | undefined;
  if (options.top !== undefined) {
    page = all.slice(offset, offset + Math.min(options.top, ERP_MAX_PAGE_SIZE));
  } else {
    const size = preferred ?? ERP_MAX_PAGE_SIZE;
    page = all.slice(offset, offset + size);
    if (offset + size < all.length) {
      const last = page[page.length - 1]!;
      const params = Object.entries(q.query).filter(([name]) => name !== '$skiptoken' && name !== '$skip');
      params.push(['$skiptoken', mintSkipToken(q.s, offset + size, last.fields[schema.key])]);
      nextLink =
        `${q.s.publicUrl}${q.url.pathname}?` +
        `${params.map(([k, v]) => `${encodeQueryValue(k)}=${encodeQueryValue(v)}`).join('&')}`;
      if (q.s.switches.nextLinkExtraQuery !== null) nextLink += `&${q.s.switches.nextLinkExtraQuery}`;
    }
  }
  const body: Record<string, unknown> = {
    '@odata.context': options.select === undefined ? context : `${context}(${options.select.join(',')})`,
  };
  if (options.count === true) body['@odata.count'] = all.length;
  body.value = page.map((row) => shapeRow(row, schema, options, source));
  if (nextLink !== undefined) body['@odata.nextLink'] = nextLink;
  sendODataJson(q.res, 200, body, headers);
}

export function sendEntity(
  q: ReadRequest,
  schema: ErpEntitySchema,
  row: ErpStoredRow,
  context: string,
  source: (set: string) => readonly ErpStoredRow[],
): void {
  const options = parsedOptions(q, schema);
  const body = {
    '@odata.context': `${context}/$entity`,
    ...shapeRow(
      row,
      schema,
      { ...(options.select ? { select: options.select } : {}), ...(options.expand ? { expand: options.expand } : {}) },
      source,
    ),
  };
  sendODataJson(q.res, 200, body, { etag: row.etag });
}

export function sendCount(q: ReadRequest, schema: ErpEntitySchema, rows: readonly ErpStoredRow[]): void {
  const options = parsedOptions(q, schema);
  sendText(q.res, 200, String(selectRows(rows, options).length), { 'odata-version': '4.0' });
}

export function companyOf(s: ErpState, scope: ApiScope, key: string): ErpCompany {
  const id = guidKey(key, 'companies');
  const company = s.data.companies.find((c) => c.environment === scope.environment && c.row.id === id);
  if (company === undefined)
    throw new HttpError(
      s.switches.unknownCompanyStatus,
      'Internal_CompanyNotFound',
      `The company '${id}' does not exist in environment '${scope.environment}' or you do not have access to it.`,
    );
  return company;
}

export function findByKey(rows: readonly ErpStoredRow[], schema: ErpEntitySchema, key: string): ErpStoredRow {
  const row = rows.find((r) => String(r.fields[schema.key]).toLowerCase() === key);
  if (row === undefined)
    throw new HttpError(
      404,
      'Internal_RecordNotFound',
      `The ${schema.type} does not exist. Identification fields and values: ${schema.key}='${key}'.`,
    );
  return row;
}
