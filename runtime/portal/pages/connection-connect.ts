// The connections page's connect route: the connect rule (connect-rule.ts) before the page itself.
import type { PortalKit, SignedInRequest } from '../kit.ts';
import { connectRuleRefused } from './connect-rule.ts';
import { connectionAction } from './connections.ts';

/**
 * `/portal/connections/<instance>/connect`: the connect rule first (GET and POST), then the page. An
 * instance the account does not have goes on to the page, which answers it as unknown.
 */
export async function connectionConnect(kit: PortalKit, r: SignedInRequest, instanceId: string): Promise<number> {
  const endpoint = kit.g.endpoints.get(instanceId);
  const subscribed = endpoint && kit.g.state.isSubscribed(r.signedIn.account.id, endpoint.connector.config.key);
  if (
    endpoint &&
    subscribed &&
    endpoint.connector.descriptor.credential !== 'managed_basic' &&
    r.signedIn.user.termsAcceptedAt
  ) {
    const refused = await connectRuleRefused(kit, r, endpoint.connector, instanceId);
    if (refused !== undefined) return refused;
  }
  return connectionAction(kit, r, instanceId, 'connect');
}
