// The platform schema as an ordered list of migrations, the same SQL for the embedded PostgreSQL
// (PGlite) and a PostgreSQL server. A migration is never edited once released: add a new one.
// migrate.ts applies them. Those of the tool surface a caller may narrow are in
// migrations-tool-scopes.ts, those of users and mail in migrations-users.ts, the call log's in
// migrations-call-log.ts.
import { CALL_LOG_MIGRATIONS } from './migrations-call-log.ts';
import { TOOL_SCOPE_MIGRATIONS } from './migrations-tool-scopes.ts';
import { USER_MIGRATIONS } from './migrations-users.ts';

export interface Migration {
  readonly version: number;
  readonly name: string;
  readonly sql: string;
}

/** The trigger `<table>_<name>` on each platform table, one statement a line (the text migrations 1 and 4 released). */
function platformTriggers(name: string, when: 'AFTER' | 'BEFORE', each: 'ROW' | 'STATEMENT', fn: string): string {
  return ['accounts', 'users', 'tokens', 'subscriptions', 'seats', 'connections']
    .map(
      (t) =>
        `CREATE TRIGGER ${t}_${name} ${when} INSERT OR UPDATE OR DELETE ON ${t} ` +
        `FOR EACH ${each} EXECUTE FUNCTION ${fn}();`,
    )
    .join('\n');
}

export const migrations: readonly Migration[] = [
  {
    version: 1,
    name: 'platform',
    sql: `
CREATE TABLE accounts (
  id text PRIMARY KEY,
  name text NOT NULL,
  fair_use_mode text NOT NULL DEFAULT 'off' CHECK (fair_use_mode IN ('off', 'soft', 'hard')),
  fair_use_quota bigint CHECK (fair_use_quota >= 0),
  created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE users (
  id text PRIMARY KEY,
  account_id text NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  email text NOT NULL,
  name text NOT NULL,
  role text NOT NULL DEFAULT 'member' CHECK (role IN ('admin', 'member')),
  terms_accepted_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX users_email_key ON users (lower(email));
CREATE INDEX users_account_id_idx ON users (account_id);

CREATE TABLE tokens (
  id text PRIMARY KEY,
  user_id text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  label text NOT NULL,
  token_hash text NOT NULL UNIQUE,
  created_at timestamptz NOT NULL DEFAULT now(),
  revoked_at timestamptz
);
CREATE INDEX tokens_user_id_idx ON tokens (user_id);

CREATE TABLE subscriptions (
  account_id text NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  connector_key text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (account_id, connector_key)
);

CREATE TABLE seats (
  user_id text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  connector_key text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (user_id, connector_key)
);

CREATE TABLE connections (
  account_id text NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  instance_id text NOT NULL,
  connector_key text NOT NULL,
  ciphertext text NOT NULL,
  key_version integer NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (account_id, instance_id)
);

CREATE TABLE connect_links (
  jti text PRIMARY KEY,
  account_id text NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  user_id text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  instance_id text NOT NULL,
  expires_at timestamptz NOT NULL,
  used_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX connect_links_account_id_idx ON connect_links (account_id);
CREATE INDEX connect_links_user_id_idx ON connect_links (user_id);

CREATE TABLE usage (
  account_id text NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  month text NOT NULL CHECK (month ~ '^[0-9]{4}-(0[1-9]|1[0-2])$'),
  connector_id text NOT NULL,
  tool text NOT NULL,
  calls bigint NOT NULL DEFAULT 0 CHECK (calls >= 0),
  cost_units bigint NOT NULL DEFAULT 0 CHECK (cost_units >= 0),
  PRIMARY KEY (account_id, month, connector_id, tool)
);
`,
  },
  {
    version: 2,
    name: 'data_layer',
    sql: `
CREATE TABLE data_layers (
  account_id text NOT NULL,
  instance_id text NOT NULL,
  enabled_at timestamptz NOT NULL,
  baseline_at timestamptz,
  PRIMARY KEY (account_id, instance_id),
  FOREIGN KEY (account_id, instance_id) REFERENCES connections (account_id, instance_id) ON DELETE CASCADE
);

CREATE TABLE data_layer_items (
  account_id text NOT NULL,
  instance_id text NOT NULL,
  item_key text NOT NULL,
  first_seen_at timestamptz NOT NULL,
  baseline boolean NOT NULL,
  PRIMARY KEY (account_id, instance_id, item_key),
  FOREIGN KEY (account_id, instance_id) REFERENCES data_layers (account_id, instance_id) ON DELETE CASCADE
);
`,
  },
  {
    version: 3,
    name: 'change_version',
    // One counter that every write to the hot-path tables bumps (statement-level triggers), so a
    // replica can ask "did anything change?" with one tiny read instead of reloading everything.
    sql: `
CREATE TABLE platform_changes (
  id smallint PRIMARY KEY CHECK (id = 1),
  version bigint NOT NULL
);
INSERT INTO platform_changes (id, version) VALUES (1, 0);

CREATE FUNCTION platform_bump_version() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE platform_changes SET version = version + 1 WHERE id = 1;
  RETURN NULL;
END
$$;

${platformTriggers('changed', 'AFTER', 'STATEMENT', 'platform_bump_version')}
`,
  },
  {
    version: 4,
    name: 'usage_batches',
    // Usage flushes are idempotent: a batch whose answer was lost (the connection died after the
    // commit) is retried with the same id and applied once. Ids are kept 30 days.
    sql: `
CREATE TABLE usage_batches (
  id text PRIMARY KEY,
  applied_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX usage_batches_applied_at ON usage_batches (applied_at);
`,
  },
  {
    version: 5,
    name: 'key_checks',
    // One check value per credential key version (a MAC of a fixed label under a key derived from
    // that key), recorded the first time the version is used: a gateway started with a wrong key
    // refuses to start instead of failing every stored credential.
    sql: `
CREATE TABLE key_checks (
  version integer PRIMARY KEY,
  check_value text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
`,
  },
  {
    version: 6,
    name: 'connect_links_expiry',
    // Expired connect links are purged a day after they expire (runtime/secrets/signed-links.ts).
    sql: `
CREATE INDEX connect_links_expires_at_idx ON connect_links (expires_at);
`,
  },
  {
    version: 7,
    name: 'oauth',
    // OAuth connections (docs/decisions/oauth-connections.md, 'OAuth connections are declared in the
    // spec and refreshed under a row lock'). One row per authorize redirect: the state is stored
    // only as a hash, the PKCE verifier sealed by the vault, the browser binding as a hash; single-use
    // (used_at), 10 minutes like the connect link it came from. A connection whose grant the
    // identity provider refused at refresh is marked, and no refresh is tried until a reconnect.
    sql: `
CREATE TABLE oauth_states (
  state_hash text PRIMARY KEY,
  account_id text NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  user_id text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  instance_id text NOT NULL,
  connector_key text NOT NULL,
  link_jti text NOT NULL,
  verifier_sealed text NOT NULL,
  browser_hash text NOT NULL,
  expires_at timestamptz NOT NULL,
  used_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX oauth_states_expires_at_idx ON oauth_states (expires_at);
CREATE INDEX oauth_states_account_id_idx ON oauth_states (account_id);
ALTER TABLE connections ADD COLUMN reconnect_required_at timestamptz;
`,
  },
  {
    version: 8,
    name: 'write_dedup',
    // Confirmed writes run once even when a caller retries on another replica
    // (docs/decisions/upstream-calls.md, 'Identical writes are deduplicated for a window'): one row
    // per account + instance + tool + canonical arguments (hashed), claimed by the first caller with
    // an insert-if-absent; the outcome is stored when the write is done, and an identical call
    // within the window (on any replica) waits for it instead of writing again. A row older than
    // the window may be claimed anew.
    sql: `
CREATE TABLE write_dedup (
  key text PRIMARY KEY,
  claimed_at bigint NOT NULL,
  outcome text
);
CREATE INDEX write_dedup_claimed_at_idx ON write_dedup (claimed_at);
`,
  },
  {
    version: 9,
    name: 'portal',
    // The portal's sign-in (docs/decisions/portal.md, 'Sign-in, sessions, CSRF, connect links bound to
    // their user') and the audit log (docs/decisions/operations.md, 'The admin CLI runs inside a
    // running gateway; changes are audited'). Passwords as argon2id PHC strings, one per user;
    // sessions stored only as a hash of the cookie value; failed sign-ins per address and per account
    // (the rate limit holds across replicas); single-use set-password links (invitations), stored as
    // hashes; and the audit log of every change made in the portal or the admin CLI (never a secret:
    // the details are names and ids). The audit log has no foreign key: it outlives the users and
    // accounts it names.
    sql: `
CREATE TABLE user_passwords (
  user_id text PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
  password_hash text NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE portal_sessions (
  id_hash text PRIMARY KEY,
  user_id text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL,
  source_ip text NOT NULL DEFAULT ''
);
CREATE INDEX portal_sessions_user_id_idx ON portal_sessions (user_id);
CREATE INDEX portal_sessions_expires_at_idx ON portal_sessions (expires_at);

CREATE TABLE sign_in_failures (
  scope_key text NOT NULL,
  at timestamptz NOT NULL
);
CREATE INDEX sign_in_failures_key_at_idx ON sign_in_failures (scope_key, at);

CREATE TABLE password_links (
  token_hash text PRIMARY KEY,
  user_id text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  expires_at timestamptz NOT NULL,
  used_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX password_links_user_id_idx ON password_links (user_id);

CREATE TABLE audit_log (
  id bigserial PRIMARY KEY,
  account_id text,
  actor text NOT NULL,
  action text NOT NULL,
  target text NOT NULL DEFAULT '',
  detail text NOT NULL DEFAULT '',
  source text NOT NULL DEFAULT '',
  at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX audit_log_account_at_idx ON audit_log (account_id, at);
`,
  },
  {
    version: 10,
    name: 'change_log',
    // Incremental snapshot updates (docs/decisions/store-and-replicas.md, 'Writes reach the snapshot
    // incrementally, by the keys they changed'): every row written to a hot-path table leaves its
    // key in a change log under the change version, so a replica reads the keys changed since its
    // version and re-reads only those rows (O(changes), never O(accounts) per write). The version
    // is bumped once per statement, BEFORE it runs, and handed to the row triggers through a
    // transaction-local setting; the row lock on platform_changes, held to COMMIT, makes versions
    // commit in order, so a reader that has seen version V has every log row up to V. Rows older
    // than a day are pruned (pruned_through: a replica behind it reloads in full).
    sql: `
ALTER TABLE platform_changes ADD COLUMN pruned_through bigint NOT NULL DEFAULT 0;

CREATE TABLE platform_change_log (
  version bigint NOT NULL,
  entity text NOT NULL,
  key1 text NOT NULL,
  key2 text NOT NULL DEFAULT '',
  changed_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (version, entity, key1, key2)
);
CREATE INDEX platform_change_log_changed_at_idx ON platform_change_log (changed_at);

DROP TRIGGER accounts_changed ON accounts;
DROP TRIGGER users_changed ON users;
DROP TRIGGER tokens_changed ON tokens;
DROP TRIGGER subscriptions_changed ON subscriptions;
DROP TRIGGER seats_changed ON seats;
DROP TRIGGER connections_changed ON connections;
DROP FUNCTION platform_bump_version();

CREATE FUNCTION platform_begin_change() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE v bigint;
BEGIN
  UPDATE platform_changes SET version = version + 1 WHERE id = 1 RETURNING version INTO v;
  PERFORM set_config('platform.change_version', v::text, true);
  RETURN NULL;
END
$$;

CREATE FUNCTION platform_log_change() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  v bigint := nullif(current_setting('platform.change_version', true), '')::bigint;
  e text := TG_TABLE_NAME;
BEGIN
  IF v IS NULL THEN
    -- A row written without its statement trigger having run (never expected): a version of its own.
    UPDATE platform_changes SET version = version + 1 WHERE id = 1 RETURNING version INTO v;
    PERFORM set_config('platform.change_version', v::text, true);
  END IF;
  IF TG_OP <> 'INSERT' THEN
    IF e IN ('accounts', 'users', 'tokens') THEN
      INSERT INTO platform_change_log (version, entity, key1) VALUES (v, e, OLD.id) ON CONFLICT DO NOTHING;
    ELSIF e = 'subscriptions' THEN
      INSERT INTO platform_change_log (version, entity, key1, key2) VALUES (v, e, OLD.account_id, OLD.connector_key) ON
        CONFLICT DO NOTHING;
    ELSIF e = 'seats' THEN
      INSERT INTO platform_change_log (version, entity, key1, key2) VALUES (v, e, OLD.user_id, OLD.connector_key) ON
        CONFLICT DO NOTHING;
    ELSIF e = 'connections' THEN
      INSERT INTO platform_change_log (version, entity, key1, key2) VALUES (v, e, OLD.account_id, OLD.instance_id) ON
        CONFLICT DO NOTHING;
    END IF;
  END IF;
  IF TG_OP <> 'DELETE' THEN
    IF e IN ('accounts', 'users', 'tokens') THEN
      INSERT INTO platform_change_log (version, entity, key1) VALUES (v, e, NEW.id) ON CONFLICT DO NOTHING;
    ELSIF e = 'subscriptions' THEN
      INSERT INTO platform_change_log (version, entity, key1, key2) VALUES (v, e, NEW.account_id, NEW.connector_key) ON
        CONFLICT DO NOTHING;
    ELSIF e = 'seats' THEN
      INSERT INTO platform_change_log (version, entity, key1, key2) VALUES (v, e, NEW.user_id, NEW.connector_key) ON
        CONFLICT DO NOTHING;
    ELSIF e = 'connections' THEN
      INSERT INTO platform_change_log (version, entity, key1, key2) VALUES (v, e, NEW.account_id, NEW.instance_id) ON
        CONFLICT DO NOTHING;
    END IF;
  END IF;
  RETURN NULL;
END
$$;

${platformTriggers('change_begin', 'BEFORE', 'STATEMENT', 'platform_begin_change')}
${platformTriggers('change_row', 'AFTER', 'ROW', 'platform_log_change')}
`,
  },
  {
    version: 11,
    name: 'mcp_authorization',
    // MCP authorization (docs/decisions/mcp-authorization.md, 'The gateway is the OAuth authorization
    // server of the assistants'): the gateway as an OAuth 2.1 authorization server for assistants.
    // Clients registered dynamically (RFC 7591; public clients only, so nothing secret is stored);
    // one grant per consent (a user, a client, the endpoints it may reach); authorization codes and
    // access and refresh tokens only as SHA-256 hashes. Codes and refresh tokens are single-use
    // (used_at). Revoking a grant bumps the change version, so every replica drops what it cached.
    sql: `
CREATE TABLE mcp_clients (
  client_id text PRIMARY KEY,
  client_name text NOT NULL DEFAULT '',
  redirect_uris text NOT NULL,
  metadata text NOT NULL,
  source text NOT NULL DEFAULT '',
  created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE mcp_grants (
  id text PRIMARY KEY,
  client_id text NOT NULL,
  client_name text NOT NULL DEFAULT '',
  user_id text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  account_id text NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  endpoints text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  revoked_at timestamptz
);
CREATE INDEX mcp_grants_account_id_idx ON mcp_grants (account_id);
CREATE INDEX mcp_grants_user_id_idx ON mcp_grants (user_id);

CREATE TABLE mcp_codes (
  code_hash text PRIMARY KEY,
  grant_id text NOT NULL REFERENCES mcp_grants (id) ON DELETE CASCADE,
  redirect_uri text NOT NULL,
  code_challenge text NOT NULL,
  expires_at timestamptz NOT NULL,
  used_at timestamptz
);
CREATE INDEX mcp_codes_expires_at_idx ON mcp_codes (expires_at);

CREATE TABLE mcp_tokens (
  token_hash text PRIMARY KEY,
  grant_id text NOT NULL REFERENCES mcp_grants (id) ON DELETE CASCADE,
  kind text NOT NULL CHECK (kind IN ('access', 'refresh')),
  expires_at timestamptz NOT NULL,
  used_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX mcp_tokens_grant_id_idx ON mcp_tokens (grant_id);
CREATE INDEX mcp_tokens_expires_at_idx ON mcp_tokens (expires_at);

-- A changed or revoked grant moves the change version (migration 10's statement trigger), so every
-- replica's snapshot version moves and the access tokens it holds in memory are looked up again.
CREATE TRIGGER mcp_grants_change_begin BEFORE UPDATE OR DELETE ON mcp_grants FOR EACH STATEMENT EXECUTE FUNCTION
  platform_begin_change();
`,
  },
  ...TOOL_SCOPE_MIGRATIONS,
  ...USER_MIGRATIONS,
  ...CALL_LOG_MIGRATIONS,
];
