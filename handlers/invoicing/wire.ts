// The e-conomic wire side shared by the invoicing tools (upstreams/invoicing.md §2): the two token
// headers, GETs through `ctx.upstream` (15 s deadline, no retry: the spec's upstream policy), and
// the 400 answer flattened into the spec's `upstream_rejected` details (§3 #10). A 401/403 is let
// through: the spec declares `reconnect_required` with `upstream: [auth]`, so the runtime answers
// it (a write handler answers a 403 to its POST or PUT with `write_forbidden` itself, §3 #11).
import type { InvoicingContextWith } from '#generated/invoicing/contract.ts';
import { UpstreamError } from '#runtime/handler-api/upstream-types.ts';

/** A JSON object as e-conomic returns it. */
export type Row = Record<string, unknown>;

export function isRow(value: unknown): value is Row {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** What any invoicing request needs: the credential (and nothing it can end with but the generic text). */
export type InvoicingWireContext = InvoicingContextWith<'generic'>;
/** A request whose 400 is passed through with the rejected fields named. */
export type InvoicingReadContext = InvoicingContextWith<
  'generic' | 'upstream_rejected',
  { readonly rejectionDetailsMaxChars: number }
>;

/**
 * `X-AppSecretToken` and `X-AgreementGrantToken` (upstreams/invoicing.md §2). The app secret token
 * is the integrator's: the deployment setting CONNECTOR_INVOICING_APP_SECRET_TOKEN, which the
 * runtime hands over as `credential.appSecret` (spec `appSecret: true`); the stored token is the
 * customer's agreement grant token. A token stored before that setting existed holds both,
 * `<appSecretToken>:<agreementGrantToken>`: its own app secret is kept, since a grant is issued to
 * one application (docs/decisions/connector-invoicing.md, 'Invoicing tokens: the grant token is
 * stored, the app secret token is a deployment setting').
 */
export function tokenHeaders(ctx: InvoicingWireContext): Record<string, string> {
  const credential = ctx.credential;
  if (credential?.kind !== 'static_token' || credential.token === '')
    throw new Error('the invoicing connection holds no static grant token');
  const separator = credential.token.indexOf(':');
  if (separator > 0)
    return {
      'x-appsecrettoken': credential.token.slice(0, separator),
      'x-agreementgranttoken': credential.token.slice(separator + 1),
    };
  if (!credential.appSecret) throw new Error('the invoicing connector has no app secret token configured');
  return { 'x-appsecrettoken': credential.appSecret, 'x-agreementgranttoken': credential.token };
}

/** A query string of already-checked parameters, each value percent-encoded as a whole (`%20`, `%24`). */
export function queryString(params: Readonly<Record<string, string | number | undefined>>): string {
  const parts = Object.entries(params)
    .filter((entry): entry is [string, string | number] => entry[1] !== undefined)
    .map(([key, value]) => `${key}=${encodeURIComponent(String(value))}`);
  return parts.length ? `?${parts.join('&')}` : '';
}

/**
 * A link the upstream answered (`self`, `pdf.download`, a `Location`) as a request path on the
 * configured base URL: kept whole when it is on the base URL's origin, else its path and query on
 * the base URL (a fake or proxy may write the public host into its links). The tokens only ever go
 * to the configured upstream. Undefined for a link that is not a URL or a path.
 */
export function linkOnBase(link: string, baseUrl: string): string | undefined {
  // A path is a path on the base URL (with its prefix, if it has one).
  if (link.startsWith('/') && !link.startsWith('//')) return link;
  let url: URL;
  let base: URL;
  try {
    base = new URL(baseUrl);
    url = new URL(link);
  } catch {
    return undefined;
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return undefined;
  if (url.origin === base.origin) return url.href;
  return url.pathname + url.search;
}

/** One GET whose failures all pass through (auth: the runtime's reconnect text; anything else generic). */
export async function economicGet(ctx: InvoicingWireContext, path: string): Promise<unknown> {
  return (
    await ctx.upstream.request<unknown>({
      method: 'GET',
      path,
      headers: { ...tokenHeaders(ctx), accept: 'application/json' },
    })
  ).body;
}

/** One GET of raw bytes (a PDF). */
export async function economicGetBytes(ctx: InvoicingReadContext, path: string): Promise<Buffer> {
  try {
    const response = await ctx.upstream.request<Buffer>({
      method: 'GET',
      path,
      headers: { ...tokenHeaders(ctx), accept: 'application/pdf' },
      expect: 'bytes',
    });
    return response.body;
  } catch (error) {
    return rejected(ctx, error);
  }
}

/** One GET whose 400 ends the call with the rejected fields named. */
export async function economicRead(ctx: InvoicingReadContext, path: string): Promise<unknown> {
  try {
    return await economicGet(ctx, path);
  } catch (error) {
    return rejected(ctx, error);
  }
}

/** A 400 becomes `upstream_rejected` with its details; anything else is rethrown. */
export function rejected(ctx: InvoicingReadContext, error: unknown): never {
  if (error instanceof UpstreamError && error.status === 400) {
    const details = rejectionDetails(error.body, (fields) => ctx.text('allowedFields', { fields }));
    return ctx.fail('upstream_rejected', { details: capDetails(details, ctx.limits.rejectionDetailsMaxChars) });
  }
  throw error;
}

/** A 400's details cut to the spec's `rejectionDetailsMaxChars`. */
export function capDetails(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, Math.max(0, max - 1))}…` : text;
}

const str = (value: unknown): string | undefined => (typeof value === 'string' && value !== '' ? value : undefined);

/**
 * The details of a 400 body (§2 "Errors", §3 #10): the annotated form flattened to
 * `path: message` per rejected field (`lines[0].unitNetPrice: …` through `arrayIndex`); the
 * query-string form's `errors[]` joined, with its `allowedFilteringFields` (and sorting fields when
 * given); otherwise the body's `message`, or the raw text. Exported for the write tools.
 */
export function rejectionDetails(body: unknown, allowed: (fields: string) => string): string {
  if (typeof body === 'string') return plainText(body) ?? 'HTTP 400';
  if (!isRow(body)) return 'HTTP 400';
  const parts: string[] = [];
  const errors = body['errors'];
  if (Array.isArray(errors)) {
    for (const entry of errors) if (typeof entry === 'string' && entry !== '') parts.push(entry);
    const fields = [body['allowedFilteringFields'], body['allowedSortingFields']].flatMap((list) =>
      Array.isArray(list) ? list.filter((f): f is string => typeof f === 'string') : [],
    );
    if (fields.length) parts.push(allowed([...new Set(fields)].join(', ')));
  } else if (isRow(errors)) {
    collectFieldErrors(errors, '', parts);
  }
  if (parts.length === 0) {
    const message = str(body['message']) ?? str(body['developerHint']);
    return message ?? 'HTTP 400';
  }
  return parts.join('; ');
}

/**
 * A 400 body that is not JSON (a proxy's page, plain text): its text on one line, or nothing when
 * it is markup (an HTML page is not a message for the user).
 */
function plainText(text: string): string | undefined {
  const line = text.replace(/\s+/g, ' ').trim();
  if (line === '' || line.startsWith('<')) return undefined;
  return line;
}

/** Walks the annotated error tree: `{ field: { errors: [{ message }] } }`, arrays of `{ arrayIndex, … }`. */
function collectFieldErrors(node: Row, path: string, out: string[]): void {
  for (const [key, value] of Object.entries(node)) {
    if (key === 'arrayIndex') continue;
    const here = path ? `${path}.${key}` : key;
    if (Array.isArray(value)) {
      value.forEach((item, position) => {
        if (!isRow(item)) return;
        const index = typeof item['arrayIndex'] === 'number' ? item['arrayIndex'] : position;
        collectFieldErrors(item, `${here}[${index}]`, out);
      });
      continue;
    }
    if (!isRow(value)) continue;
    const list = value['errors'];
    if (Array.isArray(list)) {
      for (const entry of list) {
        // A plain string entry is not the documented shape; its text is still the message.
        if (typeof entry === 'string' && entry !== '') out.push(`${here}: ${entry}`);
        if (!isRow(entry)) continue;
        const message = str(entry['message']) ?? str(entry['developerHint']) ?? str(entry['errorCode']);
        if (message !== undefined) out.push(`${here}: ${message}`);
      }
    }
    // Nested objects (`recipient.vatZone`) carry their own annotated fields beside `errors`.
    const { errors: _own, ...rest } = value;
    collectFieldErrors(rest, here, out);
  }
}
