// The signed links the platform texts hand out (`/portal/<purpose>/<token>`): checked here (a bad,
// expired or used one gets its page at once), then the connect link or a capability link's page.
import { verifyLink, type LinkPurpose } from '../../secrets/signed-links.ts';
import type { PortalKit, PortalRequest } from '../kit.ts';
import { capabilityLink } from './capability-links.ts';
import { connectLink } from './connect-link.ts';

/** The path of a signed link: its purpose and its token. */
export const SIGNED_LINK = /^\/portal\/(connect|purchase|team|terms)\/([A-Za-z0-9_-]+\.[A-Za-z0-9_-]+)$/;

/** `/portal/<purpose>/<token>`, with the purpose and token of SIGNED_LINK as parameters. */
export function signedLink(
  kit: PortalKit,
  r: PortalRequest,
  [purpose, token]: readonly string[],
): Promise<number> | number {
  const check = verifyLink(kit.g.vault, token!, purpose as LinkPurpose, kit.g.now());
  if (!check.ok) {
    r.req.resume();
    return kit.linkInvalid(r, check.reason);
  }
  return purpose === 'connect'
    ? connectLink(kit, r, check.payload, token!)
    : capabilityLink(kit, r, purpose as 'purchase' | 'team' | 'terms', check.payload, token!);
}
