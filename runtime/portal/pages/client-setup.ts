// The connections page's client setup (docs/decisions/portal.md, 'Client setup snippets on the
// connections page'): per endpoint, the mcpServers JSON an MCP client (Claude Desktop, Cursor and
// others) takes, once for OAuth (the URL alone: the client finds the authorization server through
// the protected-resource metadata) and once with an API token in the Authorization header, and the
// OAuth resource and metadata URLs. The token is a placeholder: the page never shows a real one.
import { resourceMetadataUrlOf, resourceUrlOf } from '../../auth/mcp-authorization.ts';
import type { Endpoint } from '../../gateway-context.ts';
import { escapeHtml } from '../html.ts';
import type { PortalKit } from '../kit.ts';

/** The `mcpServers` configuration of one endpoint, with the token's Authorization header or without. */
export function mcpServersSnippet(instanceId: string, url: string, token?: string): string {
  const server: Record<string, unknown> = { url };
  if (token !== undefined) server.headers = { Authorization: `Bearer ${token}` };
  return JSON.stringify({ mcpServers: { [instanceId]: server } }, null, 2);
}

export function clientSetup(kit: PortalKit, endpoints: readonly Endpoint[]): string {
  const { t, plain } = kit.text;
  const base = kit.g.config.publicBaseUrl;
  const placeholder = plain('setup_token_placeholder');
  const pre = (text: string) => `<pre tabindex="0"><code>${escapeHtml(text)}</code></pre>`;
  const items = endpoints
    .map((e) => {
      const url = resourceUrlOf(base, e.instanceId);
      return (
        `<details><summary>${t('setup_summary', { instance: e.instanceId })}</summary>` +
        `<p>${t('setup_resource', { url })}</p>` +
        `<p>${t('setup_metadata', { url: resourceMetadataUrlOf(base, e.instanceId) })}</p>` +
        `<p>${t('setup_oauth')}</p>${pre(mcpServersSnippet(e.instanceId, url))}` +
        `<p>${t('setup_token', { placeholder })}</p>${pre(mcpServersSnippet(e.instanceId, url, placeholder))}` +
        '</details>'
      );
    })
    .join('');
  return items ? `<h2>${t('setup_heading')}</h2><p>${t('setup_intro')}</p>${items}` : '';
}
