// The audit log (docs/decisions/operations.md, 'The admin CLI runs inside a running gateway; changes
// are audited'): every change made in the portal or the admin CLI, with who made it,
// what, when and from where. Details are ids, names and on/off values; a secret (a password, a
// token, a credential) is never passed here. An audit write that fails is logged and does not undo
// the change it describes (the change is already committed).
import type { Logger } from 'pino';
import type { AuditEntry, Repositories, User } from '../store/store.ts';

export const userActor = (user: Pick<User, 'id' | 'email'>): string => `user:${user.id} ${user.email}`;

/** `key=value` pairs, values cut at 200 characters (the log is for reading, not for data). */
export function auditDetail(fields: Readonly<Record<string, string | number | boolean | null | undefined>>): string {
  return Object.entries(fields)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `${k}=${String(v).slice(0, 200)}`)
    .join(' ');
}

export async function recordAudit(
  store: Pick<Repositories, 'audit'>,
  entry: AuditEntry,
  log?: Pick<Logger, 'warn'>,
): Promise<void> {
  try {
    await store.audit.appendAudit({
      ...entry,
      target: entry.target.slice(0, 300),
      detail: entry.detail.slice(0, 2000),
      source: entry.source.slice(0, 100),
    });
  } catch (error) {
    log?.warn({ err: { message: (error as Error)?.message }, action: entry.action }, 'audit log write failed');
  }
}
