// `PlatformStore` over SQL: the same statements for the embedded PostgreSQL and a server. The store
// is a composition of one repository per aggregate (`repositories/`), all over one SQL client,
// opened, migrated and closed here.
import { migrate, pendingMigrations } from './migrate.ts';
import { SqlAccounts } from './repositories/accounts.ts';
import { SqlAudit } from './repositories/audit.ts';
import { SqlCallLog } from './repositories/call-log.ts';
import { SqlChanges } from './repositories/changes.ts';
import { SqlConnections } from './repositories/connections.ts';
import { SqlDataLayer } from './repositories/data-layer.ts';
import { SqlLinks } from './repositories/links.ts';
import { SqlMcp } from './repositories/mcp.ts';
import { SqlNotices } from './repositories/notices.ts';
import { SqlPortal } from './repositories/portal.ts';
import { SqlTokens } from './repositories/tokens.ts';
import { SqlUsage } from './repositories/usage.ts';
import { SqlUsers } from './repositories/users.ts';
import { SqlWrites } from './repositories/write-dedup.ts';
import type { SqlClient } from './sql-client.ts';
import type { PlatformStore } from './store.ts';

export { newId, StoreError } from './repositories/rows.ts';

export class SqlPlatformStore implements PlatformStore {
  readonly kind: 'embedded' | 'postgres';
  readonly accounts: SqlAccounts;
  readonly users: SqlUsers;
  readonly tokens: SqlTokens;
  readonly connections: SqlConnections;
  readonly links: SqlLinks;
  readonly usage: SqlUsage;
  readonly changes: SqlChanges;
  readonly dataLayer: SqlDataLayer;
  readonly writes: SqlWrites;
  readonly portal: SqlPortal;
  readonly audit: SqlAudit;
  readonly mcp: SqlMcp;
  readonly notices: SqlNotices;
  readonly callLog: SqlCallLog;
  readonly #db: SqlClient;

  constructor(db: SqlClient) {
    this.#db = db;
    this.kind = db.kind;
    this.accounts = new SqlAccounts(db);
    this.users = new SqlUsers(db);
    this.tokens = new SqlTokens(db);
    this.connections = new SqlConnections(db);
    this.links = new SqlLinks(db);
    this.usage = new SqlUsage(db);
    this.changes = new SqlChanges(db);
    this.dataLayer = new SqlDataLayer(db);
    this.writes = new SqlWrites(db);
    this.portal = new SqlPortal(db);
    this.audit = new SqlAudit(db);
    this.mcp = new SqlMcp(db);
    this.notices = new SqlNotices(db);
    this.callLog = new SqlCallLog(db);
  }

  migrate(): Promise<void> {
    return migrate(this.#db);
  }

  close(): Promise<void> {
    return this.#db.close();
  }

  async ping(): Promise<void> {
    await this.#db.query('SELECT 1');
  }

  pendingMigrations(): Promise<number> {
    return pendingMigrations(this.#db);
  }
}
