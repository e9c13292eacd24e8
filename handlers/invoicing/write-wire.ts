// The wire side of the four invoicing write tools (upstreams/invoicing.md §2 "Writes", §3 #6–#11):
// the token headers, one write through `ctx.write` (preview unless confirmed: the runtime decides),
// the GET a preview reads live, and the upstream's answers mapped to the spec's texts — a 400 names
// each rejected field, a 401 (or a 403 to the GET) is reconnect-required, a 403 to a POST or PUT
// says the grant may lack write permission. Nothing here removes or books anything.
import type { InvoicingContextWith } from '#generated/invoicing/contract.ts';
import type { WritePreview, WriteRequest } from '#runtime/handler-api/tool-context.ts';
import { UpstreamError } from '#runtime/handler-api/upstream-types.ts';
import { capDetails, isRow, linkOnBase, rejectionDetails, type Row, tokenHeaders } from './wire.ts';

export type { Row } from './wire.ts';
export { isRow } from './wire.ts';

/** What a write tool may end with (its spec lists exactly these codes). */
export type InvoicingWriteContext = InvoicingContextWith<
  'generic' | 'reconnect_required' | 'write_forbidden' | 'upstream_rejected',
  { readonly rejectionDetailsMaxChars: number }
>;

/** Keys that never become properties of an object built here (prototype pollution). */
const FORBIDDEN_KEYS: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);

/**
 * Copies own enumerable entries, skipping forbidden keys, `null` values (the upstream rejects them) and `self` links.
 */
export function cleanCopy(source: Row, skip: ReadonlySet<string> = new Set()): Row {
  const out: Row = {};
  for (const key of Object.keys(source)) {
    if (FORBIDDEN_KEYS.has(key) || skip.has(key) || key === 'self') continue;
    const value = source[key];
    if (value === null || value === undefined) continue;
    out[key] = isRow(value)
      ? cleanCopy(value)
      : Array.isArray(value)
        ? value.map((item) => (isRow(item) ? cleanCopy(item) : item))
        : value;
  }
  return out;
}

/**
 * A reference as the upstream accepts it on a write: only its `…Number` keys
 * (`{ customerGroupNumber: 1 }`); without one, its `self` link; without either, its other plain
 * fields.
 */
export function reference(value: unknown): Row | undefined {
  if (!isRow(value)) return undefined;
  const numbers = Object.keys(value).filter(
    (key) => key.endsWith('Number') && !FORBIDDEN_KEYS.has(key) && value[key] !== null && value[key] !== undefined,
  );
  if (numbers.length === 0) {
    // Writes take a reference by number or by `self` (upstreams/invoicing.md §2 "Conventions").
    if (typeof value.self === 'string' && value.self !== '') return { self: value.self };
    const rest = cleanCopy(value);
    return Object.keys(rest).length ? rest : undefined;
  }
  const out: Row = {};
  for (const key of numbers) out[key] = value[key];
  return out;
}

/** The token headers of the reads (`wire.ts`), and JSON answers. */
export function writeHeaders(ctx: InvoicingWriteContext): Record<string, string> {
  return { ...tokenHeaders(ctx), accept: 'application/json' };
}

/** The upstream's answer to a request as the spec's text; anything else is rethrown. */
export function mapFailure(ctx: InvoicingWriteContext, error: unknown, method: 'GET' | 'POST' | 'PUT'): never {
  if (error instanceof UpstreamError && error.status !== undefined) {
    if (error.status === 400) {
      const details = rejectionDetails(error.body, (fields) => ctx.text('allowedFields', { fields }));
      return ctx.fail('upstream_rejected', { details: capDetails(details, ctx.limits.rejectionDetailsMaxChars) });
    }
    if (error.status === 403 && method !== 'GET') return ctx.fail('write_forbidden');
    if (error.status === 401 || error.status === 403) return ctx.fail('reconnect_required', { status: error.status });
  }
  throw error;
}

/** The live read a preview makes (update_customer, duplicate_invoice). */
export async function readRecord(ctx: InvoicingWriteContext, path: string): Promise<Row> {
  let body: unknown;
  try {
    body = (await ctx.upstream.request<unknown>({ method: 'GET', path, headers: writeHeaders(ctx) })).body;
  } catch (error) {
    return mapFailure(ctx, error, 'GET');
  }
  if (!isRow(body)) throw new UpstreamError('bad_body', 'the record is not a JSON object');
  return body;
}

/**
 * The write: without `confirm: true` the preview of exactly this request (no request made); with
 * it, the request sent once and the upstream's JSON body.
 */
export async function sendWrite(
  ctx: InvoicingWriteContext,
  request: WriteRequest,
  summary: string,
): Promise<{ readonly preview: WritePreview } | { readonly body: Row }> {
  let outcome: Awaited<ReturnType<typeof ctx.write.send>>;
  try {
    outcome = await ctx.write.send(request, {
      summary,
      confirmHint: ctx.text('writeConfirmHint'),
      headers: writeHeaders(ctx),
    });
  } catch (error) {
    return mapFailure(ctx, error, request.method);
  }
  if ('preview' in outcome) return outcome;
  const { body, headers } = outcome.response;
  if (isRow(body)) return { body };
  // The docs answer a POST with 201 + Location + the full body and a PUT with 200 + the body; an
  // answer without a body (204, or an empty 201) is read back from where the record now is.
  const location =
    typeof headers['location'] === 'string' ? linkOnBase(headers['location'], ctx.upstream.baseUrl) : undefined;
  if (body === null && request.method === 'POST' && location !== undefined)
    return { body: await readBack(ctx, location) };
  if (body === null && request.method === 'PUT') return { body: await readBack(ctx, request.path) };
  throw new UpstreamError('bad_body', 'the written record is not a JSON object');
}

/**
 * The read after an accepted write. Its failure is not the write's: the write happened, so it ends
 * as an answer without a status (the dedup window then keeps the key and an identical confirmation
 * within it is not sent again), never as a 4xx text that would free the key.
 */
async function readBack(ctx: InvoicingWriteContext, path: string): Promise<Row> {
  try {
    return await readRecord(ctx, path);
  } catch {
    throw new UpstreamError('bad_body', 'the write was accepted without a body, and reading the record back failed');
  }
}

/** The customer the upstream answered, as the spec's result (its number is required). */
export function customerResult(body: Row): Row & { customerNumber: number } {
  const number = body.customerNumber;
  if (typeof number !== 'number')
    throw new UpstreamError('bad_body', 'the upstream answered a customer without customerNumber');
  return { ...body, customerNumber: number };
}

/** The draft the upstream created, as the spec's result (number and the calculated amounts are required). */
export function createdDraftResult(
  body: Row,
): Row & { draftInvoiceNumber: number; netAmount: number; grossAmount: number; vatAmount: number } {
  const { draftInvoiceNumber, netAmount, grossAmount, vatAmount } = body;
  if (
    typeof draftInvoiceNumber !== 'number' ||
    typeof netAmount !== 'number' ||
    typeof grossAmount !== 'number' ||
    typeof vatAmount !== 'number'
  ) {
    throw new UpstreamError('bad_body', 'the upstream answered a draft without its number or amounts');
  }
  return { ...body, draftInvoiceNumber, netAmount, grossAmount, vatAmount };
}

/**
 * An invoice line of the write tools as the upstream takes it (§3 #8, #9): `unit` only when given, no invented
 * description.
 */
export function lineBody(line: {
  productNumber: string;
  quantity: number;
  unitNetPrice: number;
  description?: string;
  unitNumber?: number;
  discountPercentage?: number;
}): Row {
  const out: Row = {
    product: { productNumber: line.productNumber },
    quantity: line.quantity,
    unitNetPrice: line.unitNetPrice,
  };
  if (line.description !== undefined) out.description = line.description;
  if (line.unitNumber !== undefined) out.unit = { unitNumber: line.unitNumber };
  if (line.discountPercentage !== undefined) out.discountPercentage = line.discountPercentage;
  return out;
}

/** `notes` from the flat arguments, over the ones given (`heading`, `textLine1`, `textLine2`). */
export function notesBody(
  base: Row | undefined,
  args: { notesHeading?: string; notesTextLine1?: string; notesTextLine2?: string },
): Row | undefined {
  const notes: Row = base ? cleanCopy(base) : {};
  if (args.notesHeading !== undefined) notes.heading = args.notesHeading;
  if (args.notesTextLine1 !== undefined) notes.textLine1 = args.notesTextLine1;
  if (args.notesTextLine2 !== undefined) notes.textLine2 = args.notesTextLine2;
  return Object.keys(notes).length ? notes : undefined;
}
