// Elasticsearch 6 error bodies of the register sandbox, and the small JSON helpers the query
// parser and the server share.

export interface EsErrorCause {
  type: string;
  reason: string;
  [key: string]: unknown;
}

export interface EsErrorBody {
  error: EsErrorCause & { root_cause: EsErrorCause[] };
  status: number;
}

/** An Elasticsearch error body: `{ error: { root_cause: [...], type, reason, ... }, status }`. */
export function esErrorBody(
  status: number,
  type: string,
  reason: string,
  extra: Record<string, unknown> = {},
  rootCause?: EsErrorCause[],
): EsErrorBody {
  return { error: { root_cause: rootCause ?? [{ type, reason }], type, reason, ...extra }, status };
}

export class QueryError extends Error {
  readonly status: number;
  readonly body: EsErrorBody;
  constructor(body: EsErrorBody) {
    super(body.error.reason);
    this.status = body.status;
    this.body = body;
  }
}

export function parsingError(reason: string): QueryError {
  return new QueryError(esErrorBody(400, 'parsing_exception', reason));
}

export function illegalArgument(reason: string): QueryError {
  return new QueryError(esErrorBody(400, 'illegal_argument_exception', reason));
}

/** A failure raised on the shards: wrapped in `search_phase_execution_exception` as ES 6 does. */
export function shardFailure(index: string, cause: EsErrorCause): QueryError {
  return new QueryError(
    esErrorBody(
      400,
      'search_phase_execution_exception',
      'all shards failed',
      { phase: 'query', grouped: true, failed_shards: [{ shard: 0, index, node: 'sandbox-node-0', reason: cause }] },
      [{ ...cause, index_uuid: 'sandbox', index }],
    ),
  );
}

export const NOT_IN_SANDBOX = 'is not supported by the register sandbox';

export function tokenKind(value: unknown): string {
  if (value === null) return 'VALUE_NULL';
  if (Array.isArray(value)) return 'START_ARRAY';
  switch (typeof value) {
    case 'object':
      return 'START_OBJECT';
    case 'string':
      return 'VALUE_STRING';
    case 'number':
      return 'VALUE_NUMBER';
    case 'boolean':
      return 'VALUE_BOOLEAN';
    default:
      return 'VALUE_EMBEDDED_OBJECT';
  }
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
