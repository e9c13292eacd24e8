// The connect page opened from a connect link says who asked for it: a link is a bearer capability,
// so until the portal has sign-in the page names the account and the user that requested it and the
// endpoint it connects, and warns not to enter another company's credentials (account B must not
// be able to pass its link to a user of account A unnoticed). Every interpolated value is escaped.
import { describe, expect, it } from 'vitest';
import type { PlatformStore } from '../runtime/store/store.ts';
import { createTenant, rpc, type StartedGateway } from './support/gateway.ts';
import { fetchAs, portalAs } from './support/portal.ts';
import { gatewayForSuite } from './support/suite-gateway.ts';

const resultTextOf = (r: { json: unknown }) =>
  (r.json as { result: { content: Array<{ text: string }> } }).result.content[0]!.text;
const WARNING = 'Do not enter another company&#39;s credentials';

describe('connect page context', () => {
  let store: PlatformStore;
  let gw: StartedGateway;
  gatewayForSuite((started) => ({ store, gw } = started));

  it('names the requesting account, user and endpoint, escaped, and warns against others’ credentials', async () => {
    const hostile = `<script>alert("B")</script> & Co 'Ltd'`;
    const account = await store.accounts.createAccount({ name: hostile });
    const b = await createTenant(store, { subscribe: ['cases'], accountId: account.id });
    await gw.app.context.state.refresh();
    const r = await rpc(gw.url, 'cases-2', b.token, {
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'connect_account', arguments: {} },
    });
    const { connect_url: url } = JSON.parse(resultTextOf(r)) as { connect_url: string };
    // The link is bound to its user (docs/decisions/portal.md, 'Sign-in, sessions, CSRF, connect links bound to their
    // user'): the page is read signed in as that user.
    const portal = await portalAs(gw, b.user);
    const fetch = (u: string, init?: { method?: string; body?: string; headers?: Record<string, string> }) =>
      fetchAs(portal, u, init);

    const shown = await fetch(url);
    expect(shown.status).toBe(200);
    const html = await shown.text();
    // The account name is user input: it appears only escaped.
    expect(html).not.toContain('<script>');
    expect(html).toContain('&lt;script&gt;alert(&quot;B&quot;)&lt;/script&gt; &amp; Co &#39;Ltd&#39;');
    // Which user asked (name and email as stored), for which connector and endpoint.
    expect(html).toContain(b.user.name);
    expect(html).toContain(b.user.email);
    expect(html).toContain('Case management');
    expect(html).toContain(`${gw.url}/cases-2/mcp`);
    expect(html).toContain('(path /cases-2/mcp)');
    expect(html).toContain(WARNING);
    expect(html).toContain('name="apiKey"');

    // A form sent back incomplete shows the same context again; the link stays usable.
    const incomplete = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: '',
    });
    expect(incomplete.status).toBe(400);
    const again = await incomplete.text();
    expect(again).toContain(b.user.email);
    expect(again).toContain(WARNING);
    expect(again).not.toContain('<script>');

    // Connected: the confirmation names the account too.
    const done = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'apiKey=k-7Qx9-connect-page',
    });
    expect(done.status).toBe(200);
    const confirmation = await done.text();
    expect(confirmation).toContain('&lt;script&gt;');
    expect(confirmation).not.toContain('<script>');
    expect(confirmation).not.toContain('k-7Qx9-connect-page');
  });

  it('shows the first instance path on the link of a not-connected refusal', async () => {
    const a = await createTenant(store, { subscribe: ['cases'] });
    await gw.app.context.state.refresh();
    const r = await rpc(gw.url, 'cases', a.token, {
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'cases__list_cases', arguments: {} },
    });
    const message = resultTextOf(r);
    const url = message.slice(message.indexOf('http'));
    const html = await (await fetchAs(await portalAs(gw, a.user), url)).text();
    expect(html).toContain(a.account.name);
    expect(html).toContain(a.user.name);
    expect(html).toContain(a.user.email);
    expect(html).toContain(`${gw.url}/cases/mcp`);
    expect(html).toContain('(path /cases/mcp)');
    expect(html).toContain(WARNING);
  });
});
