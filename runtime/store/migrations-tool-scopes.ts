// Migrations 12–15: what narrows the tools a caller reaches — scopes on API tokens, an account's
// tool settings per instance, scopes of OAuth grants (docs/decisions/mcp-authorization.md) — and why
// a connection needs reconnecting.
// Part of `migrations` (migrations.ts); never edited once released.
// Typed by shape, not by importing Migration: migrations.ts imports this file.
export const TOOL_SCOPE_MIGRATIONS: readonly { version: number; name: string; sql: string }[] = [
  {
    version: 12,
    name: 'token_scopes',
    // Scopes on API tokens (docs/decisions/mcp-authorization.md, 'Scopes on API tokens'): NULL is an
    // unscoped token (every connector, every tool); otherwise a JSON text of the connectors (keys) it
    // may reach, per connector the toolsets, and whether only read-only tools. Loaded with the token
    // into the in-memory snapshot, so the request path reads it without a query.
    sql: `
ALTER TABLE tokens ADD COLUMN scope text;
`,
  },
  {
    version: 13,
    name: 'instance_tool_settings',
    // An administrator's narrowing of one endpoint instance for the whole account (docs/decisions/
    // mcp-authorization.md, 'Tool settings of an instance'): toolsets and tools turned off (JSON
    // arrays) and read-only. Part of the hot-path snapshot, so its rows are logged like connections'.
    sql: `
CREATE TABLE instance_tool_settings (
  account_id text NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  instance_id text NOT NULL,
  disabled_toolsets text NOT NULL DEFAULT '[]',
  disabled_tools text NOT NULL DEFAULT '[]',
  read_only boolean NOT NULL DEFAULT false,
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (account_id, instance_id)
);

CREATE OR REPLACE FUNCTION platform_log_change() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  v bigint := nullif(current_setting('platform.change_version', true), '')::bigint;
  e text := TG_TABLE_NAME;
BEGIN
  IF v IS NULL THEN
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
    ELSIF e IN ('connections', 'instance_tool_settings') THEN
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
    ELSIF e IN ('connections', 'instance_tool_settings') THEN
      INSERT INTO platform_change_log (version, entity, key1, key2) VALUES (v, e, NEW.account_id, NEW.instance_id) ON
        CONFLICT DO NOTHING;
    END IF;
  END IF;
  RETURN NULL;
END
$$;

CREATE TRIGGER instance_tool_settings_change_begin BEFORE INSERT OR UPDATE OR DELETE ON instance_tool_settings
  FOR EACH STATEMENT EXECUTE FUNCTION platform_begin_change();
CREATE TRIGGER instance_tool_settings_change_row AFTER INSERT OR UPDATE OR DELETE ON instance_tool_settings
  FOR EACH ROW EXECUTE FUNCTION platform_log_change();
`,
  },
  {
    version: 14,
    name: 'grant_scopes',
    // The scope an assistant asked for when it was connected with OAuth (docs/decisions/
    // mcp-authorization.md, 'Scopes of OAuth grants'): NULL is everything the user may do.
    sql: `
ALTER TABLE mcp_grants ADD COLUMN scope text;
`,
  },
  {
    version: 15,
    name: 'connection_reconnect_reason',
    // Why a connection needs reconnecting (issue 36: connection health): the connector's text a call
    // got (key rejected, access expired), set with reconnect_required_at and cleared with it.
    sql: `
ALTER TABLE connections ADD COLUMN reconnect_reason text;
`,
  },
];
