// Migrations 17 and 18: the call log of each account and the daily usage beside it
// (docs/decisions/portal.md, 'The call log keeps no arguments or results' and 'The call log is
// written in batches').
// Part of `migrations` (migrations.ts); never edited once released.
// Typed by shape, not by importing Migration: migrations.ts imports this file.
export const CALL_LOG_MIGRATIONS: readonly { version: number; name: string; sql: string }[] = [
  {
    version: 17,
    name: 'call_log',
    // One row per tools/call that reached the pipeline: when, which endpoint instance and tool, the
    // outcome class and its code, the user and the token (an id, never the token), how long it took.
    // Never the arguments or the result. Rows older than CALL_LOG_DAYS are pruned. Beside it, the
    // metered calls per day, endpoint instance and user, kept like the monthly usage (not pruned).
    sql: `
CREATE TABLE call_log (
  id bigserial PRIMARY KEY,
  account_id text NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  at timestamptz NOT NULL,
  instance_id text NOT NULL,
  tool text NOT NULL,
  outcome text NOT NULL CHECK (outcome IN ('ok', 'error', 'refused')),
  detail text NOT NULL DEFAULT '',
  user_id text NOT NULL,
  token_id text NOT NULL DEFAULT '',
  duration_ms integer
);
CREATE INDEX call_log_account_at_idx ON call_log (account_id, at DESC, id DESC);
CREATE INDEX call_log_at_idx ON call_log (at);

CREATE TABLE usage_daily (
  account_id text NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  day date NOT NULL,
  instance_id text NOT NULL,
  user_id text NOT NULL,
  calls bigint NOT NULL CHECK (calls >= 0),
  PRIMARY KEY (account_id, day, instance_id, user_id)
);
`,
  },
  {
    version: 18,
    name: 'call_batches',
    // The call log in batches: one row per account and writer flush (at most 500 calls), its calls in
    // `entries` as a JSON array of [at (epoch ms), instance, tool, outcome, detail, user, token id,
    // duration ms or null], oldest first. A row per call cost the embedded engine ~23 µs of CPU per
    // call (a heap tuple, two indexes and a foreign-key check each); a batch costs ~3.6 µs per call.
    // `instances`, `tools`, `outcomes` and `users` are the distinct values of the batch, so a filter
    // skips the batches without a match before any entry is read. The calls already logged move over
    // in batches of at most 500 per account, in time order.
    sql: `
CREATE TABLE call_batches (
  id bigserial PRIMARY KEY,
  account_id text NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  first_at timestamptz NOT NULL,
  last_at timestamptz NOT NULL,
  calls integer NOT NULL CHECK (calls > 0),
  instances text[] NOT NULL,
  tools text[] NOT NULL,
  outcomes text[] NOT NULL,
  users text[] NOT NULL,
  entries text NOT NULL
);
CREATE INDEX call_batches_account_idx ON call_batches (account_id, last_at DESC, id DESC);
CREATE INDEX call_batches_first_at_idx ON call_batches (first_at);

INSERT INTO call_batches (account_id, first_at, last_at, calls, instances, tools, outcomes, users, entries)
SELECT account_id, min(at), max(at), count(*),
       array_agg(DISTINCT instance_id), array_agg(DISTINCT tool), array_agg(DISTINCT outcome),
       array_agg(DISTINCT user_id),
       json_agg(json_build_array((extract(epoch FROM at) * 1000)::bigint, instance_id, tool, outcome, detail, user_id,
                                 token_id, duration_ms) ORDER BY at, id)::text
  FROM (SELECT c.*, (row_number() OVER (PARTITION BY account_id ORDER BY at, id) - 1) / 500 AS chunk FROM call_log c) n
 GROUP BY account_id, chunk
 ORDER BY min(at);
DROP TABLE call_log;
`,
  },
];
