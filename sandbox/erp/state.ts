// The Business Central sandbox's state (one object built by startErpSandbox, handed to every
// handler), its stats and request log, one read request, and the OData error it throws.
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import type { PendingDelays } from '../http-kit.ts';
import type { erpDataset } from './data.ts';
import type { ErpSwitches, ErpTokenVerifier } from './switches.ts';

export interface ErpRecordedRequest {
  readonly method: string;
  /** Path without the query string, as received (percent-encoded). */
  readonly path: string;
  /** Decoded query parameters. */
  readonly query: Readonly<Record<string, string>>;
  readonly headers: IncomingHttpHeaders;
}

export interface ErpWriteAttempt {
  readonly method: string;
  readonly path: string;
  readonly body: unknown;
}

export interface ErpSandboxStats {
  /** Upstream requests received (control requests excluded). */
  requests: number;
  /** Answers by status code. */
  byStatus: Record<string, number>;
  unauthorized: number;
  forbidden: number;
  /** 429 answers (window and fault). */
  throttled: number;
  /** 400 answers for `Data-Access-Intent: ReadOnly` on the switched set. */
  readOnlyIntentRejections: number;
  /** Every request with a method other than GET (answered 405); must stay empty. */
  writeLog: ErpWriteAttempt[];
}

export interface ErpState {
  switches: ErpSwitches;
  readonly initialSwitches: ErpSwitches;
  readonly stats: ErpSandboxStats;
  readonly requestLog: ErpRecordedRequest[];
  /** Per token: the times of the requests in the sliding window. */
  readonly windows: Map<string, number[]>;
  readonly delays: PendingDelays;
  readonly data: ReturnType<typeof erpDataset>;
  /** Signs skip tokens (random per start). */
  readonly skipTokenKey: Buffer;
  /** The origin put into absolute links; set once the sandbox listens. */
  publicUrl: string;
  readonly basePath: string;
  readonly staticToken: string | null;
  readonly unlicensedToken: string | null;
  readonly verifyToken: ErpTokenVerifier | undefined;
}

export interface ApiScope {
  /** `{publicUrl}/v2.0[/{tenant}]/{env}/api/v2.0` as requested. */
  readonly base: string;
  readonly environment: string;
}

export interface ReadRequest {
  readonly s: ErpState;
  readonly req: IncomingMessage;
  readonly res: ServerResponse;
  readonly url: URL;
  /** Decoded query parameters. */
  readonly query: Readonly<Record<string, string>>;
}

export class HttpError extends Error {
  readonly status: number;
  readonly code: string;
  readonly headers: Record<string, string>;
  constructor(status: number, code: string, message: string, headers: Record<string, string> = {}) {
    super(message);
    this.status = status;
    this.code = code;
    this.headers = headers;
  }
}
