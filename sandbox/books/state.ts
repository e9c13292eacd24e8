// The Dinero sandbox's state (one object built by startBooksSandbox, handed to every handler), its
// stats and request log, one request as the handlers see it, and Dinero's JSON error.
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { type PendingDelays, sendJson } from '../http-kit.ts';
import type { BooksDataset, Row } from './data.ts';
import type { BooksSwitches, BooksTokenVerifier } from './switches.ts';

export interface BooksRecordedRequest {
  readonly method: string;
  /** Path as received (percent-encoded), without the query string. */
  readonly path: string;
  /** Decoded query parameters. */
  readonly query: Readonly<Record<string, string>>;
  readonly headers: IncomingHttpHeaders;
  readonly body: unknown;
}

export interface BooksSandboxStats {
  requests: number;
  byStatus: Record<string, number>;
  unauthorized: number;
  forbidden: number;
  throttled: number;
  brownouts: number;
  /** Calls of the two calculators (POST …/fetch): they persist nothing. */
  calculations: number;
  /** Every other POST/PUT/PATCH/DELETE (answered 405); must stay empty. */
  writeLog: { method: string; path: string; body: unknown }[];
  /** Every `fields` name an endpoint does not document (answered 400, or left out by switch); must stay empty. */
  undocumentedFields: { path: string; field: string }[];
}

export interface BooksState {
  switches: BooksSwitches;
  readonly initialSwitches: BooksSwitches;
  readonly data: BooksDataset;
  readonly stats: BooksSandboxStats;
  readonly requestLog: BooksRecordedRequest[];
  /** Per organisation and client id: the times of the requests of the last minute. */
  readonly windows: Map<string, number[]>;
  readonly delays: PendingDelays;
  readonly verifyToken: BooksTokenVerifier | undefined;
}

/** One upstream request below an organisation, as the route handlers see it. */
export interface Req {
  readonly s: BooksState;
  readonly req: IncomingMessage;
  readonly res: ServerResponse;
  readonly method: string;
  /** The path as received (percent-encoded). */
  readonly path: string;
  readonly query: URLSearchParams;
  readonly body: unknown;
  /** The client wants bytes (`Accept: application/octet-stream`). */
  readonly wantsBytes: boolean;
}

export class DineroError extends Error {
  readonly status: number;
  readonly code: number;
  readonly validationErrors: Record<string, string> | undefined;
  constructor(status: number, code: number, message: string, validationErrors?: Record<string, string>) {
    super(message);
    this.status = status;
    this.code = code;
    this.validationErrors = validationErrors;
  }
}

export const validation = (field: string, message: string) =>
  new DineroError(400, 42, 'Validation failed', { [field]: message });

export function sendDineroError(res: ServerResponse, error: DineroError): void {
  const body: Row = { code: error.code, message: error.message };
  if (error.validationErrors) {
    body.validationErrors = error.validationErrors;
    body.languageSpecificMessages = Object.entries(error.validationErrors).map(([property, message]) => ({
      property,
      message,
    }));
  }
  sendJson(res, error.status, body);
}

export const notFound = (s: BooksState, what: string): DineroError =>
  new DineroError(s.switches.notFoundStatus, 40, `${what} was not found.`);
