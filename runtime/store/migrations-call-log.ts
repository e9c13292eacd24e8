// Migration 17: the call log of each account and the daily usage beside it
// (docs/decisions/portal.md, 'The call log keeps no arguments or results').
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
];
