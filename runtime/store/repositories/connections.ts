// Connections (sealed credentials per endpoint instance), the key checks and the refresh lock.
import type { SqlClient } from '../sql-client.ts';
import type { Connection, ConnectionsRepository, InstanceToolSettings, LockedConnectionWrite } from '../store.ts';
import {
  CONNECTION_COLUMNS,
  type ConnectionRow,
  first,
  TOOL_SETTINGS_COLUMNS,
  type ToolSettingsRow,
  toConnection,
  toToolSettings,
  translate,
} from './rows.ts';

export class SqlConnections implements ConnectionsRepository {
  readonly #kind: 'embedded' | 'postgres';
  readonly #db: SqlClient;

  constructor(db: SqlClient) {
    this.#db = db;
    this.#kind = db.kind;
  }

  async putConnection(input: {
    accountId: string;
    instanceId: string;
    connectorKey: string;
    ciphertext: string;
    keyVersion: number;
  }): Promise<Connection> {
    try {
      const { rows } = await this.#db.query<ConnectionRow>(
        `INSERT INTO connections (account_id, instance_id, connector_key, ciphertext, key_version)
         VALUES ($1, $2, $3, $4, $5)
         ON CONFLICT (account_id, instance_id) DO UPDATE
            SET connector_key = excluded.connector_key, ciphertext = excluded.ciphertext,
                key_version = excluded.key_version, updated_at = now(), reconnect_required_at = NULL,
                reconnect_reason = NULL
         RETURNING ${CONNECTION_COLUMNS}`,
        [input.accountId, input.instanceId, input.connectorKey, input.ciphertext, input.keyVersion],
      );
      return toConnection(first(rows, 'putConnection'));
    } catch (err) {
      translate(err, `Connection ${input.instanceId}`);
    }
  }

  async getConnection(accountId: string, instanceId: string): Promise<Connection | null> {
    const { rows } = await this.#db.query<ConnectionRow>(
      `SELECT ${CONNECTION_COLUMNS} FROM connections WHERE account_id = $1 AND instance_id = $2`,
      [accountId, instanceId],
    );
    return rows[0] === undefined ? null : toConnection(rows[0]);
  }

  async listConnections(accountId?: string): Promise<Connection[]> {
    const { rows } =
      accountId === undefined
        ? await this.#db.query<ConnectionRow>(
            `SELECT ${CONNECTION_COLUMNS} FROM connections ORDER BY account_id, instance_id`,
          )
        : await this.#db.query<ConnectionRow>(
            `SELECT ${CONNECTION_COLUMNS} FROM connections WHERE account_id = $1 ORDER BY instance_id`,
            [accountId],
          );
    return rows.map(toConnection);
  }

  async deleteConnection(accountId: string, instanceId: string): Promise<void> {
    await this.#db.query('DELETE FROM connections WHERE account_id = $1 AND instance_id = $2', [accountId, instanceId]);
  }

  async markReconnectRequired(accountId: string, instanceId: string, reason: string): Promise<boolean> {
    const { rows } = await this.#db.query<{ instance_id: string }>(
      'UPDATE connections SET reconnect_required_at = coalesce(reconnect_required_at, now()), reconnect_reason = ' +
        '$3 WHERE account_id = $1 AND instance_id = $2 AND reconnect_reason IS NULL RETURNING instance_id',
      [accountId, instanceId, reason.slice(0, 500)],
    );
    return rows.length > 0;
  }

  async getToolSettings(accountId: string, instanceId: string): Promise<InstanceToolSettings | null> {
    const { rows } = await this.#db.query<ToolSettingsRow>(
      `SELECT ${TOOL_SETTINGS_COLUMNS} FROM instance_tool_settings WHERE account_id = $1 AND instance_id = $2`,
      [accountId, instanceId],
    );
    return rows[0] ? toToolSettings(rows[0]) : null;
  }

  async putToolSettings(input: Omit<InstanceToolSettings, 'updatedAt'>): Promise<void> {
    const narrows = input.disabledToolsets.length > 0 || input.disabledTools.length > 0 || input.readOnly;
    if (!narrows) {
      await this.#db.query('DELETE FROM instance_tool_settings WHERE account_id = $1 AND instance_id = $2', [
        input.accountId,
        input.instanceId,
      ]);
      return;
    }
    try {
      await this.#db.query(
        `INSERT INTO instance_tool_settings (account_id, instance_id, disabled_toolsets, disabled_tools, read_only)
         VALUES ($1, $2, $3, $4, $5)
         ON CONFLICT (account_id, instance_id) DO UPDATE
            SET disabled_toolsets = excluded.disabled_toolsets, disabled_tools = excluded.disabled_tools,
                read_only = excluded.read_only, updated_at = now()`,
        [
          input.accountId,
          input.instanceId,
          JSON.stringify(input.disabledToolsets),
          JSON.stringify(input.disabledTools),
          input.readOnly,
        ],
      );
    } catch (err) {
      translate(err, `Account ${input.accountId}`);
    }
  }

  async connectionsSealedWith(keyVersion: number, limit: number): Promise<Connection[]> {
    const { rows } = await this.#db.query<ConnectionRow>(
      `SELECT ${CONNECTION_COLUMNS} FROM connections WHERE key_version = $1 LIMIT $2`,
      [keyVersion, limit],
    );
    return rows.map(toConnection);
  }

  async keyChecks(): Promise<Map<number, string>> {
    const { rows } = await this.#db.query<{ version: number; check_value: string }>(
      'SELECT version, check_value FROM key_checks',
    );
    return new Map(rows.map((r) => [Number(r.version), r.check_value]));
  }

  async recordKeyCheck(version: number, checkValue: string): Promise<string> {
    // Two processes recording the same version at once: the first insert wins, both read it back.
    await this.#db.query(
      'INSERT INTO key_checks (version, check_value) VALUES ($1, $2) ON CONFLICT (version) DO NOTHING',
      [version, checkValue],
    );
    const { rows } = await this.#db.query<{ check_value: string }>(
      'SELECT check_value FROM key_checks WHERE version = $1',
      [version],
    );
    return rows[0]!.check_value;
  }

  async replaceCiphertext(
    accountId: string,
    instanceId: string,
    expectedKeyVersion: number,
    ciphertext: string,
    keyVersion: number,
  ): Promise<boolean> {
    // The credential itself is unchanged, so `updated_at` (last connect) stays.
    const { rows } = await this.#db.query<{ instance_id: string }>(
      `UPDATE connections SET ciphertext = $4, key_version = $5
        WHERE account_id = $1 AND instance_id = $2 AND key_version = $3
        RETURNING instance_id`,
      [accountId, instanceId, expectedKeyVersion, ciphertext, keyVersion],
    );
    return rows.length > 0;
  }

  async withConnectionLock<T>(
    accountId: string,
    instanceId: string,
    fn: (current: Connection | null) => Promise<{ write: LockedConnectionWrite; value: T }>,
  ): Promise<T> {
    const run = async (db: SqlClient, lock: string): Promise<T> => {
      const { rows } = await db.query<ConnectionRow>(
        `SELECT ${CONNECTION_COLUMNS} FROM connections WHERE account_id = $1 AND instance_id = $2${lock}`,
        [accountId, instanceId],
      );
      const { write, value } = await fn(rows[0] === undefined ? null : toConnection(rows[0]));
      if (write && 'ciphertext' in write) {
        await db.query(
          'UPDATE connections SET ciphertext = $3, key_version = $4, reconnect_required_at = NULL, ' +
            'reconnect_reason = NULL WHERE ' +
            'account_id = $1 AND instance_id = $2',
          [accountId, instanceId, write.ciphertext, write.keyVersion],
        );
      } else if (write) {
        await db.query(
          'UPDATE connections SET reconnect_required_at = now() WHERE account_id = $1 AND instance_id = $2 AND ' +
            'reconnect_required_at IS NULL',
          [accountId, instanceId],
        );
      }
      return value;
    };
    // The embedded engine has one connection for the whole process: a transaction held across a
    // token request would stall every other query. It serves one process, which coalesces.
    if (this.#kind === 'embedded') return run(this.#db, '');
    return this.#db.transaction((tx) => run(tx, ' FOR UPDATE'));
  }
}
