// The OAuth connect of a connector whose credential is an OAuth grant: the start (from a connect
// link or the connections page) and the callback from the identity provider, which stores the grant.
import type { ConnectorRuntime, GatewayContext } from '../../gateway-context.ts';
import { completeOAuthConnect, newBrowserBinding } from '../../upstream/oauth.ts';
import type { PortalWord } from '../html.ts';
import type { PortalKit, PortalRequest } from '../kit.ts';
import { sha256Hex } from '../../secrets/hash.ts';
import { connectRuleRefusal } from './connect-rule.ts';

/** The OAuth redirect URI's path: `<publicBaseUrl>/portal/oauth/callback`. */
export const OAUTH_CALLBACK_PATH = '/portal/oauth/callback';

/** The browser-binding cookie of one flow (named by a digest of its state, so flows run side by side). */
const stateCookie = (state: string) => `cg_oauth_${sha256Hex(state).slice(0, 16)}`;

function cookieValue(header: string | undefined, name: string): string | undefined {
  for (const part of (header ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

/** Where the identity provider sends the browser back (register it with the provider). */
const redirectUri = (g: GatewayContext) => `${g.config.publicBaseUrl}${OAUTH_CALLBACK_PATH}`;

/**
 * The OAuth connect start (from a connect link or the connections page): a single-use state (10
 * minutes, bound to the account, instance and user, and to this browser by a cookie) and a
 * redirect to the provider's authorize endpoint with PKCE S256. The link record `jti` is consumed
 * when the callback stores the grant.
 */
export async function startOAuth(
  kit: PortalKit,
  r: PortalRequest,
  target: { accountId: string; userId: string; instanceId: string; jti: string },
  connector: ConnectorRuntime,
): Promise<number> {
  const g = kit.g;
  const client = g.oauth.clients.get(connector.config.key);
  if (!client) {
    g.log.warn(
      { connector: connector.config.id },
      'oauth connect refused: no OAuth client id is configured for this connector',
    );
    return kit.notice(r, 503, 'connect_title', 'oauth_not_set_up', { connector: connector.descriptor.title });
  }
  const flow = await client.authorizeRedirect(redirectUri(g));
  const browser = newBrowserBinding();
  const validMs = g.platform.limits.connectLinkValidSeconds * 1000;
  await g.store.links.createOAuthState({
    stateHash: sha256Hex(flow.state),
    accountId: target.accountId,
    userId: target.userId,
    instanceId: target.instanceId,
    connectorKey: connector.config.key,
    linkJti: target.jti,
    verifierSealed: g.vault.seal(flow.verifier, target.accountId, target.instanceId).ciphertext,
    browserHash: browser.hash,
    expiresAt: new Date(g.now().getTime() + validMs),
  });
  const secure = g.config.publicBaseUrl.startsWith('https:') ? '; Secure' : '';
  r.res.writeHead(302, {
    location: flow.url,
    'cache-control': 'no-store',
    'referrer-policy': 'no-referrer',
    // SameSite=Lax: sent on the provider's top-level redirect back to the callback.
    'set-cookie':
      `${stateCookie(flow.state)}=${browser.value}; Path=${OAUTH_CALLBACK_PATH}; Max-Age=` +
      `${Math.floor(validMs / 1000)}` +
      `; HttpOnly; SameSite=Lax${secure}`,
  });
  r.res.end();
  return 302;
}

/** `GET /portal/oauth/callback?code&state`: refuses a missing, reused, expired or foreign state; stores the grant. */
export async function oauthCallback(kit: PortalKit, r: PortalRequest): Promise<number> {
  const g = kit.g;
  const { t, plain } = kit.text;
  r.req.resume();
  const refused = (status: number, why: PortalWord) =>
    kit.view(
      r,
      status,
      plain('oauth_refused_title'),
      `<p class="error">${t(why)}</p><p class="note">${t('oauth_ask_again')}</p>`,
    );
  if (r.req.method !== 'GET') return kit.notice(r, 405, 'method_title', 'method_not_allowed');
  const state = r.query.get('state');
  if (!state || state.length > 512) return refused(400, 'oauth_no_state');
  const stateHash = sha256Hex(state);
  // The browser that started the flow holds the binding cookie; another browser (a link passed on) does not.
  const binding = cookieValue(r.req.headers.cookie, stateCookie(state));
  const outcome = await g.store.links.consumeOAuthState(stateHash, g.now());
  if (outcome.outcome !== 'ok') {
    g.log.info({ outcome: outcome.outcome }, 'oauth callback refused');
    return refused(
      outcome.outcome === 'expired' ? 410 : 400,
      outcome.outcome === 'expired' ? 'oauth_expired' : outcome.outcome === 'used' ? 'oauth_used' : 'oauth_unknown',
    );
  }
  const flow = outcome.state;
  const fields = { accountId: flow.accountId, userId: flow.userId, instance: flow.instanceId };
  if (!binding || sha256Hex(binding) !== flow.browserHash) {
    g.log.warn(fields, 'oauth callback refused: the state belongs to another browser');
    return refused(400, 'oauth_other_browser');
  }
  const endpoint = g.endpoints.get(flow.instanceId);
  const connector = endpoint?.connector;
  const client = connector ? g.oauth.clients.get(connector.config.key) : undefined;
  if (!endpoint || !connector || !client || connector.config.key !== flow.connectorKey)
    return refused(400, 'oauth_unknown');
  const title = connector.descriptor.title;
  const notConnected = (status: number, html: string) =>
    kit.view(
      r,
      status,
      plain('not_connected_title', { connector: title }),
      `${html}<p class="note">${t('oauth_try_again')}</p>`,
    );
  if (r.query.has('error')) {
    g.log.info(
      { ...fields, providerError: (r.query.get('error') ?? '').slice(0, 64) },
      'oauth authorize answered an error',
    );
    return notConnected(400, `<p class="error">${t('oauth_cancelled')}</p>`);
  }
  let verifier: string;
  try {
    verifier = g.vault.open(flow.verifierSealed, flow.accountId, flow.instanceId);
  } catch {
    return refused(400, 'oauth_unknown');
  }
  // The connect rule again at the end of the flow: the user, their seat or the connection changed meanwhile.
  const starter = await g.store.users.getUser(flow.userId);
  const rule = starter ? await connectRuleRefusal(kit, starter, connector, flow.instanceId) : 'connect_needs_seat';
  if (rule) return notConnected(403, `<p class="error">${t(rule, { connector: title })}</p>`);
  const target = { accountId: flow.accountId, instanceId: flow.instanceId, connectorKey: connector.config.key };
  const done = await completeOAuthConnect(
    g,
    client,
    target,
    { callback: r.query, state, verifier, redirectUri: redirectUri(g) },
    g.now(),
  );
  if (!done.ok) {
    switch (done.reason) {
      case 'exchange_failed':
        g.log.warn({ ...fields, tokenEndpoint: done.failure }, 'oauth code exchange failed');
        return notConnected(502, `<p class="error">${t('oauth_exchange_failed')}</p>`);
      case 'no_refresh_token':
        g.log.info(fields, 'oauth connect refused: no refresh token in the token response');
        return notConnected(400, `<p class="error">${t('oauth_no_refresh_token')}</p>`);
      default: {
        g.log.info(
          { ...fields, reason: done.reason, scopes: done.scopes.slice(0, 20) },
          'oauth connect refused: granted scopes',
        );
        const list = (scopes: readonly string[]) => scopes.join(', ');
        return notConnected(
          400,
          '<p class="error">' +
            (done.reason === 'missing_required'
              ? t('oauth_scope_missing', { scopes: list(client.provider.grantedScopes.requireOneOf) })
              : t('oauth_scope_refused', { scopes: list(done.scopes) })) +
            '</p>',
        );
      }
    }
  }
  await g.state.refresh();
  g.log.info({ ...fields, connector: connector.config.id }, 'connection stored');
  if (starter)
    await kit.audit(r, starter, 'connection.set', flow.instanceId, { connector: connector.config.key, via: 'oauth' });
  const account = g.state.account(flow.accountId);
  return kit.view(
    r,
    200,
    plain('connected_title', { connector: title }),
    '<p role="status">' +
      t('connected_text', { endpoint: kit.endpointUrl(flow.instanceId), account: account?.name ?? flow.accountId }) +
      '</p>',
  );
}
