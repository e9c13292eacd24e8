// What one running invoicing sandbox keeps (data, switches, stats, request log, credentials,
// the public origin of its links), shared by its read, write and request handlers.
import type { IncomingHttpHeaders } from 'node:http';
import type { PendingDelays } from '../http-kit.ts';
import type { InvoicingData } from './data.ts';
import type { InvoicingSwitches } from './switches.ts';

export interface InvoicingRecordedRequest {
  readonly method: string;
  /** Path as received (still encoded), without the query string. */
  readonly path: string;
  readonly query: Readonly<Record<string, string>>;
  readonly headers: IncomingHttpHeaders;
}

export interface InvoicingWrite {
  readonly method: string;
  readonly path: string;
  readonly body: unknown;
  readonly status: number;
}

export interface InvoicingSandboxStats {
  requests: number;
  byStatus: Record<string, number>;
  /** Every POST and PUT that reached the API (accepted or refused), in order. */
  writeLog: InvoicingWrite[];
  /** DELETEs and booking attempts (`POST /invoices/booked…`): must stay empty. */
  forbidden: InvoicingWrite[];
  /** Query parameters the docs do not describe, as `name` per request (see `unknownQuery`). */
  undocumentedQuery: string[];
  /** Write-body properties the docs do not describe (see `unknownProperties`). */
  undocumentedProperties: string[];
}

export interface InvoicingState {
  readonly data: InvoicingData;
  readonly initialSwitches: InvoicingSwitches;
  switches: InvoicingSwitches;
  readonly stats: InvoicingSandboxStats;
  readonly requests: InvoicingRecordedRequest[];
  readonly delays: PendingDelays;
  readonly appSecrets: ReadonlySet<string>;
  readonly grants: Map<string, 'readWrite' | 'readOnly'>;
  /** Origin of absolute links (`self`, paging, `Location`), without a trailing slash; set once listening. */
  publicUrl: string;
}
