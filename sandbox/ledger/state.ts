// The ledger sandbox's state (one object built by startLedgerSandbox, handed to every handler),
// its stats, and the request and write records.
import type { IncomingHttpHeaders } from 'node:http';
import type { PendingDelays } from '../http-kit.ts';
import type { LedgerUser } from './data.ts';
import type { LedgerSwitches } from './switches.ts';

export interface RecordedRequest {
  method: string;
  /** Path and query string as received. */
  path: string;
  headers: IncomingHttpHeaders;
  /** Parsed JSON when the body was JSON, otherwise the raw text (undefined when empty). */
  body: unknown;
}

export interface WriteAttempt {
  method: string;
  path: string;
  body: unknown;
  at: string;
}

export interface LedgerSandboxStats {
  /** Upstream requests received (sandbox control requests excluded). */
  requests: number;
  /** Successful logins (tokens minted by /login). */
  logins: number;
  /** Login attempts answered without a token. */
  failedLogins: number;
  /** `Query/Get` requests received (whatever their outcome). */
  queries: number;
  /** `Query/Get` requests per entity name as requested. */
  queriesByEntity: Record<string, number>;
  /** The most recent `Query/Get` requests (up to 1000, oldest first): entity as requested and parsed body. */
  queryLog: Array<{ entity: string; body: unknown }>;
  /** Requests answered 401 for a missing, invalid or expired token. */
  unauthorized: number;
  /** Calls counted against the quota today, per user name. */
  callsByUser: Record<string, number>;
  lastRequest: RecordedRequest | null;
  /** Every request to a write endpoint (/Crud/*, /GLJournal/*, /Invoice/*); must stay empty. */
  writeLog: WriteAttempt[];
}

export interface LedgerState {
  switches: LedgerSwitches;
  readonly initialLifetime: number;
  readonly initialUnknown: LedgerSwitches['unknownProperties'];
  readonly stats: LedgerSandboxStats;
  /** Signs the JWTs (random per start). */
  readonly secret: Buffer;
  /** The UTC day `stats.callsByUser` counts. */
  quotaDay: string;
  readonly refreshTokens: Map<string, { user: LedgerUser; companyId: number; expires: number }>;
  readonly delays: PendingDelays;
}
