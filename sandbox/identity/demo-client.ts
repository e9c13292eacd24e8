// What an OAuth connector's sandbox record hands the demo (sandbox/sandbox.ts `RunningSandbox.oauth`):
// the provider base the gateway is configured with, one confidential demo client, registration of
// the gateway's callback once it listens, and a grant for the demo tenant without a browser.
import type { RunningSandbox } from '../sandbox.ts';
import type { IdentityProvider } from './server.ts';
import type { IdentityStyle } from './styles.ts';

export interface DemoClient {
  readonly style: IdentityStyle;
  readonly clientId: string;
  readonly clientSecret: string;
}

/**
 * `apiPath` is where the authorize and token endpoints sit below the style's base (the spec's
 * `oauth.baseUrl` path); `scope` is what the demo grant holds. The client is registered with the
 * provider on the first `register` (a client needs a redirect URI).
 */
export function demoOAuth(idp: IdentityProvider, client: DemoClient, apiPath: string, scope: readonly string[]): NonNullable<RunningSandbox['oauth']> {
  const redirectUris: string[] = [];
  return {
    baseUrl: idp.endpoints[client.style].base + apiPath,
    clientId: client.clientId,
    clientSecret: client.clientSecret,
    register(redirectUri) {
      if (!redirectUris.includes(redirectUri)) redirectUris.push(redirectUri);
      idp.registerClient({ ...client, redirectUris: [...redirectUris] });
    },
    demoGrant() {
      const t = idp.issueGrant({ clientId: client.clientId, scope });
      return { accessToken: t.access_token, ...(t.refresh_token ? { refreshToken: t.refresh_token } : {}), expiresAt: Date.now() + t.expires_in * 1000, scope: t.scope };
    },
  };
}
