// One rule for connecting, on every connect path (connect links, the connections page, the OAuth
// callback): a seat on the connector, and only an administrator replaces a working connection
// (docs/decisions/portal.md, 'One rule for connecting').
import type { ConnectorRuntime } from '../../gateway-context.ts';
import type { User } from '../../store/store.ts';
import { connectRefusal } from '../account-rules.ts';
import type { PortalKit, SignedInRequest } from '../kit.ts';

/** Why `user` may not store a connection of the instance now, as a portal text name; undefined: they may. */
export async function connectRuleRefusal(
  kit: PortalKit,
  user: Pick<User, 'id' | 'role' | 'accountId'>,
  connector: ConnectorRuntime,
  instanceId: string,
): Promise<'connect_needs_seat' | 'connect_replace_admin_only' | undefined> {
  if (!kit.g.state.hasSeat(user.id, connector.config.key)) return 'connect_needs_seat';
  if (user.role === 'admin') return undefined;
  return connectRefusal(user.role, await kit.g.store.connections.getConnection(user.accountId, instanceId));
}

/** The 403 page of a refused connect (nothing stored, nothing asked upstream), or undefined. */
export async function connectRuleRefused(
  kit: PortalKit,
  r: SignedInRequest,
  connector: ConnectorRuntime,
  instanceId: string,
): Promise<number | undefined> {
  const { user } = r.signedIn;
  const why = await connectRuleRefusal(kit, user, connector, instanceId);
  if (!why) return undefined;
  r.req.resume();
  kit.g.log.info({ userId: user.id, instance: instanceId, reason: why }, 'connect refused by the connect rule');
  return kit.notice(r, 403, 'forbidden_title', why, { connector: connector.descriptor.title });
}
