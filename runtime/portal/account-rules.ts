// Rules of an account that the portal and the admin CLI both apply (bin/admin imports them): one
// definition, so the two ways of managing an account cannot drift apart.
import type { CredentialKind } from '../handler-api/descriptor-types.ts';
import type { User, UserRole } from '../store/store.ts';

/**
 * Whether giving `target` the role `role` leaves the account without an administrator: the last one cannot step down.
 */
export function demotesLastAdmin(
  users: readonly Pick<User, 'role'>[],
  target: Pick<User, 'role'>,
  role: UserRole,
): boolean {
  return role === 'member' && target.role === 'admin' && users.filter((u) => u.role === 'admin').length <= 1;
}

/**
 * Why an account may not store a connection of a connector, if so: only a subscribed connector is
 * connected (`unknown_instance`: to the account the instance does not exist), and a connector on
 * the deployment's own account takes no tenant connection (`status_managed`).
 */
export function connectionRefusal(
  subscribed: boolean,
  kind: CredentialKind,
): 'unknown_instance' | 'status_managed' | undefined {
  if (!subscribed) return 'unknown_instance';
  return kind === 'managed_basic' ? 'status_managed' : undefined;
}

/**
 * Why a user may not store a connection of an instance over the one it has, if so (docs/decisions/portal.md,
 * 'One rule for connecting'): an administrator connects and replaces; a member connects an instance
 * without a connection, or reconnects one marked as needing a reconnect, but does not replace a
 * working connection. The same rule on the connections page, connect links and the OAuth callback.
 */
export function connectRefusal(
  role: UserRole,
  existing: { readonly reconnectRequiredAt?: Date | null } | null | undefined,
): 'connect_replace_admin_only' | undefined {
  if (role === 'admin' || !existing || existing.reconnectRequiredAt) return undefined;
  return 'connect_replace_admin_only';
}
