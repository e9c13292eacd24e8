// "Test connection" on the connections page (spec `connector.connectionTest`; docs/decisions/
// portal.md, 'Test connection runs one declared read as the user's call'): runs the test and shows
// the page with its answer. The button and each connection's last use are drawn by connections.ts.
import { randomBytes } from 'node:crypto';
import { escapeHtml } from '../html.ts';
import type { PortalKit, SignedInRequest } from '../kit.ts';
import { connections } from './connections.ts';

/** `POST /portal/connections/<instance>/test`: runs the test and shows the connections page with its answer. */
export async function connectionTestAction(kit: PortalKit, r: SignedInRequest, instanceId: string): Promise<number> {
  const g = kit.g;
  const { account, user } = r.signedIn;
  const endpoint = g.endpoints.get(instanceId);
  const test = kit.options.testConnection;
  if (!endpoint || !g.state.isSubscribed(account.id, endpoint.connector.config.key) || !test)
    return kit.notice(r, 404, 'not_found_title', 'unknown_instance');
  if (r.req.method !== 'POST') return kit.notice(r, 405, 'method_title', 'method_not_allowed');
  const form = await kit.form(r);
  if (!form) return r.res.statusCode;
  const gone = new AbortController();
  r.res.once('close', () => gone.abort());
  const result = await test(
    endpoint,
    { user, account, tokenId: 'portal', scope: null },
    gone.signal,
    `portal-test-${randomBytes(6).toString('hex')}`,
  );
  if (!result) return kit.notice(r, 404, 'not_found_title', 'unknown_instance');
  const { t } = kit.text;
  const notice = result.ok
    ? `<p class="ok" role="status">${t('test_ok', { instance: instanceId, tool: result.tool, ms: result.ms })}</p>`
    : `<div class="error" role="alert"><p>${t('test_failed', { instance: instanceId, tool: result.tool })}</p>` +
      `<p>${escapeHtml(result.text)}</p></div>`;
  return connections(kit, r, notice);
}
