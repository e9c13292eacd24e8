// Every upstream request of the case connector goes through here: the document check first (no
// document that could write ever leaves the gateway), then one POST to the GraphQL endpoint with
// the tenant's key, then the classification of GraphQL errors into the spec's texts.
import type { CasesContextWith, CasesLimits } from '#generated/cases/contract.ts';
import { UpstreamError } from '#runtime/handler-api/upstream-types.ts';
import type { DocumentCost } from './document-check.ts';

// graphql-js (and the document check built on it) load on the first case-management call, not at
// gateway start-up (~100 ms).
let graphqlModules: Promise<[typeof import('graphql'), typeof import('./document-check.ts')]> | undefined;
const loadGraphql = () => (graphqlModules ??= Promise.all([import('graphql'), import('./document-check.ts')]));

export interface GraphQLErrorShape {
  readonly message?: string;
  readonly type?: string;
  readonly path?: readonly unknown[];
  readonly validation?: Record<string, unknown>;
  readonly extensions?: {
    readonly validation?: Record<string, unknown>;
    readonly category?: string;
    readonly [k: string]: unknown;
  };
}

interface GraphQLResponse<T> {
  readonly data?: T | null;
  readonly errors?: readonly GraphQLErrorShape[];
}

/** A GraphQL error the spec has no specific text for (the client sees the generic text). */
export class UpstreamGraphQLError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'GraphQLError';
  }
}

/** What every upstream request of the case connector may end with, and the limits it reads. */
export type CasesCallContext = CasesContextWith<
  'generic' | 'key_rejected' | 'throttled' | 'upstream_validation',
  CasesLimits
>;

const isAuthError = (e: GraphQLErrorShape) =>
  /unauthenticated/i.test(e.message ?? '') ||
  /authentication/i.test(e.type ?? '') ||
  /authentication/i.test(String(e.extensions?.category ?? ''));

const isThrottleError = (e: GraphQLErrorShape) =>
  /throttle/i.test(e.type ?? '') ||
  /too many attempts/i.test(e.message ?? '') ||
  /throttl/i.test(String(e.extensions?.category ?? ''));

/** A throttle exception inside an HTTP 200 is handled like a 429 (one retry, then the text). */
export function throttledBody(body: unknown): boolean {
  const errors = (body as GraphQLResponse<unknown> | null)?.errors;
  return Array.isArray(errors) && errors.some(isThrottleError);
}

function validationOf(e: GraphQLErrorShape): Record<string, unknown> | undefined {
  const v = e.extensions?.validation ?? e.validation;
  return v && typeof v === 'object' && Object.keys(v).length > 0 ? v : undefined;
}

function flatten(messages: unknown): string {
  if (Array.isArray(messages)) return messages.map(String).join(' ');
  return String(messages);
}

function authorization(ctx: CasesCallContext): string {
  if (ctx.credential?.kind !== 'api_key' || !ctx.credential.apiKey) ctx.fail('key_rejected');
  return `Bearer ${ctx.credential.apiKey}`;
}

/**
 * Sends one checked document and returns `data`. Any GraphQL error fails the call (even with
 * partial data): authentication → `key_rejected`, throttling (after the one retry) → `throttled`,
 * validation → `upstream_validation`, anything else → the generic text. A document the check
 * refuses ends the call before any request: `refuseCostly` (for a document over the cost limit,
 * given by a tool that has a text for it) or the generic text.
 */
export async function runQuery<T>(
  ctx: CasesCallContext,
  query: string,
  variables?: Record<string, unknown>,
  refuseCostly?: (cost: DocumentCost) => never,
): Promise<T> {
  const [{ print }, { checkDocument }] = await loadGraphql();
  const check = checkDocument(
    query,
    {
      maxChars: ctx.limits.documentMaxChars,
      maxTokens: ctx.limits.documentMaxTokens,
      maxListSelections: ctx.limits.documentMaxListSelections,
      maxEstimatedRows: ctx.limits.documentMaxEstimatedRows,
      assumedPageSize: ctx.limits.documentAssumedPageSize,
    },
    variables,
  );
  if (!check.ok) {
    // A refused document is a refusal of the arguments: the generic text (or, for a free query
    // over the cost limit, the tool's own text), and not metered when nothing was sent upstream yet.
    ctx.log.warn({ reason: check.reason, detail: check.detail }, 'document refused before any upstream request');
    if (check.reason === 'too_costly' && refuseCostly) refuseCostly(check.cost);
    ctx.refuseArguments('generic');
  }
  let response: GraphQLResponse<T>;
  try {
    const res = await ctx.upstream.request<GraphQLResponse<T>>({
      method: 'POST',
      path: '',
      headers: { authorization: authorization(ctx) },
      // The upstream receives the document exactly as checked (graphql-js's own printing of the
      // parsed tree), so no parser difference upstream can turn it into something else.
      json: variables === undefined ? { query: print(check.document) } : { query: print(check.document), variables },
      throttledBody,
    });
    response = res.body ?? {};
  } catch (error) {
    if (error instanceof UpstreamError) {
      if (error.kind === 'auth') ctx.fail('key_rejected');
      if (error.kind === 'throttled') ctx.fail('throttled');
      // A 4xx carrying GraphQL errors (some servers answer validation failures that way).
      const errors = (error.body as GraphQLResponse<T> | undefined)?.errors;
      if (Array.isArray(errors) && errors.length > 0) classify(ctx, errors);
    }
    throw error;
  }
  if (response.errors && response.errors.length > 0) classify(ctx, response.errors);
  if (response.data === undefined || response.data === null)
    throw new UpstreamGraphQLError('the upstream answered without data');
  return response.data;
}

function classify(ctx: CasesCallContext, errors: readonly GraphQLErrorShape[]): never {
  if (errors.some(isAuthError)) ctx.fail('key_rejected');
  if (errors.some(isThrottleError)) ctx.fail('throttled');
  for (const e of errors) {
    const validation = validationOf(e);
    if (validation) {
      const [field, messages] = Object.entries(validation)[0]!;
      ctx.fail('upstream_validation', { field, messages: flatten(messages) });
    }
  }
  throw new UpstreamGraphQLError(errors.map((e) => e.message ?? 'GraphQL error').join('; '));
}
