// The contract between handlers and the upstream HTTP layer (runtime/upstream/client.ts).

export type UpstreamFailureKind =
  | 'auth' // 401 or 403
  | 'throttled' // 429 after the single retry of the connector's policy
  | 'validation' // 400 or 422
  | 'not_found' // 404
  | 'timeout' // the connector's whole-request deadline passed
  | 'server' // 5xx or 408
  | 'client' // any other non-2xx, including 3xx (redirects are never followed)
  | 'bad_body' // a 2xx whose body is not what was expected (not JSON, truncated)
  | 'too_large' // the response passed the connector's size cap
  | 'network'; // connection refused, reset, DNS

export class UpstreamError extends Error {
  readonly kind: UpstreamFailureKind;
  readonly status: number | undefined;
  /** Parsed JSON error body when there was one (for the handler's mapping), else the text (≤ 2 KB). */
  readonly body: unknown;
  readonly headers: Readonly<Record<string, string>>;
  constructor(
    kind: UpstreamFailureKind,
    message: string,
    details: { status?: number; body?: unknown; headers?: Record<string, string> } = {},
  ) {
    super(message);
    this.name = 'UpstreamError';
    this.kind = kind;
    this.status = details.status;
    this.body = details.body;
    this.headers = details.headers ?? {};
  }
}

export interface UpstreamRequest {
  readonly method: 'GET' | 'POST' | 'PUT' | 'PATCH';
  /** Path relative to the connector's base URL (`/v1/items`), or an absolute URL on its origin. */
  readonly path: string;
  readonly query?: Readonly<Record<string, string | number | boolean | undefined>>;
  /** Headers, including the credential the upstream expects (never logged). */
  readonly headers?: Readonly<Record<string, string>>;
  /** Sent as `application/json`. */
  readonly json?: unknown;
  /** Raw body (with its own content-type header). */
  readonly body?: string;
  /** How to read a 2xx body: JSON (default), text or bytes. */
  readonly expect?: 'json' | 'text' | 'bytes';
  /** A cap for this request's response body below the connector's `maxResponseBytes` (a download limit of one tool). */
  readonly maxBytes?: number;
  /** A write: never retried, not even on a throttle answer (DECISIONS §11). */
  readonly write?: boolean;
  /** Recognises a throttle answer inside a 2xx body (treated exactly like an HTTP 429). */
  readonly throttledBody?: (body: unknown) => boolean;
  /** Status codes that are not failures for this request (returned as responses). */
  readonly acceptStatus?: readonly number[];
}

export interface UpstreamResponse<T = unknown> {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: T;
}

export interface UpstreamClient {
  /**
   * The connector's base URL as configured (deployment override, else the spec's): the origin and path prefix requests
   * go to.
   */
  readonly baseUrl: string;
  request<T = unknown>(request: UpstreamRequest): Promise<UpstreamResponse<T>>;
}
