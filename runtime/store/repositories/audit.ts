// The audit log of changes made in the portal or the admin CLI.
import type { SqlClient } from '../sql-client.ts';
import type { AuditEntry, AuditRecord, AuditRepository } from '../store.ts';
import { date, num } from './rows.ts';

export class SqlAudit implements AuditRepository {
  readonly #db: SqlClient;

  constructor(db: SqlClient) {
    this.#db = db;
  }

  async appendAudit(entry: AuditEntry): Promise<void> {
    await this.#db.query(
      'INSERT INTO audit_log (account_id, actor, action, target, detail, source) VALUES ($1, $2, $3, $4, $5, $6)',
      [entry.accountId, entry.actor, entry.action, entry.target, entry.detail, entry.source],
    );
  }

  async listAudit(accountId: string, limit: number): Promise<AuditRecord[]> {
    const { rows } = await this.#db.query<{
      id: number | string;
      account_id: string | null;
      actor: string;
      action: string;
      target: string;
      detail: string;
      source: string;
      at: Date;
    }>(
      'SELECT id, account_id, actor, action, target, detail, source, at FROM audit_log WHERE account_id = $1 ' +
        'ORDER BY at DESC, id DESC LIMIT $2',
      [accountId, limit],
    );
    return rows.map((r) => ({
      id: num(r.id),
      accountId: r.account_id,
      actor: r.actor,
      action: r.action,
      target: r.target,
      detail: r.detail,
      source: r.source,
      at: date(r.at),
    }));
  }
}
