// What an OAuth connector's sandbox hands the demo and the gateway (RunningSandbox.oauth): its
// identity provider's endpoints for the connector's style, the sandbox OAuth client, the
// registration of the gateway's callback, and a grant for the demo tenant (what a completed
// consent would give, without a browser). Shared by the ERP and search-analytics sandboxes.
import type { RunningSandbox } from '../sandbox.ts';
import type { IdentityProvider } from './types.ts';
import type { IdentityStyle } from './styles.ts';

export interface SandboxOAuthClient {
  readonly style: IdentityStyle;
  readonly clientId: string;
  readonly clientSecret: string;
}

/**
 * `apiPath` is where the authorize and token endpoints sit below the style's base (the spec's
 * `oauth.baseUrl` path, e.g. Entra's `/organizations/oauth2/v2.0`; '' for Google, whose paths
 * start at the host); `scope` is what the demo tenant's grant carries.
 */
export function sandboxOAuth(
  idp: IdentityProvider,
  client: SandboxOAuthClient,
  options: { readonly apiPath: string; readonly scope: readonly string[] },
): NonNullable<RunningSandbox['oauth']> {
  const redirectUris: string[] = [];
  return {
    baseUrl: idp.endpoints[client.style].base + options.apiPath,
    clientId: client.clientId,
    clientSecret: client.clientSecret,
    register(redirectUri) {
      if (!redirectUris.includes(redirectUri)) redirectUris.push(redirectUri);
      idp.registerClient({ ...client, redirectUris: [...redirectUris] });
    },
    demoGrant() {
      const t = idp.issueGrant({ clientId: client.clientId, scope: options.scope });
      return {
        accessToken: t.access_token,
        ...(t.refresh_token ? { refreshToken: t.refresh_token } : {}),
        expiresAt: idp.now() + t.expires_in * 1000,
        scope: t.scope,
      };
    },
  };
}
