// The sandbox identity provider is not a connector's upstream: it serves the OAuth sandboxes (ERP,
// search analytics, bookkeeping) and the demo. `helperFor` tells discovery (sandbox/index.ts) to
// skip this folder; the connectors' sandboxes start it themselves with startIdentityProvider.
export { sandboxOAuth } from './connection.ts';
export type { SandboxOAuthClient } from './connection.ts';
export { demoClients, startIdentityProvider } from './server.ts';
export { verifyAccessToken } from './state.ts';
export type {
  AccessTokenCheck,
  ClientAuthMethod,
  ClientRegistration,
  IdentityProvider,
  IdentityProviderOptions,
  IdentityStats,
  IdentitySwitches,
  IssuedTokens,
  RefreshFailure,
  StyleEndpoints,
  TokenRequestRecord,
} from './types.ts';
export { ENTRA_BC_RESOURCE, ENTRA_TENANT_ID, IDENTITY_STYLES, STYLES } from './styles.ts';
export type { IdentityStyle } from './styles.ts';

/** Marks this folder as a helper of other sandboxes, not a connector's sandbox (see sandbox/sandbox.ts). */
export const sandboxHelper = 'identity provider for the OAuth connectors';
