// The portal pages the platform texts link to, server-rendered: connect (per credential kind),
// purchase, team (seats) and terms. Every page is reached through a signed link; connect links
// are single-use and bound to an account and endpoint instance. A later issue builds the full portal.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ConnectorRuntime, Endpoint, GatewayContext } from '../gateway-context.ts';
import type { CredentialKind } from '../handler-api/descriptor-types.ts';
import { verifyLink, type LinkPayload, type LinkPurpose } from '../platform/links.ts';
import { completeOAuthConnect, newBrowserBinding, sha256 } from '../platform/oauth.ts';
import type { Account, User } from '../platform/store.ts';
import { BodyTooLarge, readBody } from '../transport/http-io.ts';

export interface PortalRoutes {
  handle(req: IncomingMessage, res: ServerResponse, path: string): Promise<number>;
}

/** The OAuth redirect URI's path: `<publicBaseUrl>/portal/oauth/callback`. */
export const OAUTH_CALLBACK_PATH = '/portal/oauth/callback';

/** The browser-binding cookie of one flow (named by a digest of its state, so flows run side by side). */
const stateCookie = (state: string) => `cg_oauth_${sha256(state).slice(0, 16)}`;

function cookieValue(header: string | undefined, name: string): string | undefined {
  for (const part of (header ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

/** The connect form's check of a submitted credential (the pipeline's `checkCredential`); `text` is the spec's. */
export type CredentialCheck = (
  endpoint: Endpoint,
  accountId: string,
  values: Readonly<Record<string, string>>,
  signal: AbortSignal,
) => Promise<{ readonly ok: true } | { readonly ok: false; readonly reason: 'rejected' | 'unverified' | 'not_configured'; readonly text: string }>;

export interface PortalOptions {
  /** Let an account admin subscribe from the purchase page without billing (demo and trials). */
  readonly selfServicePurchase: boolean;
  /** Checks a credential typed into the connect form with the upstream before it is stored (spec `connector.connect`). */
  readonly checkCredential: CredentialCheck;
}

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

function page(res: ServerResponse, status: number, title: string, body: string): number {
  const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escapeHtml(title)} · Connector gateway</title>
<style>body{font-family:system-ui,sans-serif;max-width:40rem;margin:3rem auto;padding:0 1rem;line-height:1.5;color:#1d2330}label{display:block;margin:.8rem 0 .2rem;font-weight:600}input[type=text],input[type=password]{width:100%;padding:.5rem;border:1px solid #99a;border-radius:4px}button{margin-top:1rem;padding:.6rem 1.2rem;border:0;border-radius:4px;background:#2456c9;color:#fff;font-size:1rem;cursor:pointer}.note{color:#556}.error{color:#a11}.warning{border-left:4px solid #c80;padding:.4rem .8rem;background:#fff7e6}table{border-collapse:collapse;width:100%}td,th{text-align:left;padding:.3rem;border-bottom:1px solid #dde}</style></head>
<body><h1>${escapeHtml(title)}</h1>${body}</body></html>`;
  res.writeHead(status, {
    'content-type': 'text/html; charset=utf-8',
    'cache-control': 'no-store',
    'referrer-policy': 'no-referrer',
    'x-frame-options': 'DENY',
    'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'",
  });
  res.end(html);
  return status;
}

const CREDENTIAL_FIELDS: Record<Exclude<CredentialKind, 'managed_basic' | 'oauth2'>, Array<{ name: string; label: string; secret: boolean }>> = {
  api_key: [{ name: 'apiKey', label: 'API key', secret: true }],
  static_token: [{ name: 'token', label: 'Grant token', secret: true }],
  login_company: [
    { name: 'username', label: 'Username (server-login user)', secret: false },
    { name: 'password', label: 'Password', secret: true },
    { name: 'companyId', label: 'Company id', secret: false },
  ],
};

/** What the connect form shows: the connector, the endpoint, the fields, and who asked for the link. */
interface ConnectForm {
  readonly title: string;
  readonly instanceId: string;
  readonly fields: ReadonlyArray<{ name: string; label: string; secret: boolean }>;
  readonly token: string;
  readonly requester: { readonly account: Account; readonly user: User };
}

async function readForm(req: IncomingMessage): Promise<URLSearchParams> {
  const raw = await readBody(req, 64 * 1024);
  return new URLSearchParams(raw.toString('utf8'));
}

export function createPortal(gateway: GatewayContext, options: PortalOptions): PortalRoutes {
  const invalid = (res: ServerResponse, reason: string) =>
    page(
      res,
      reason === 'expired' ? 410 : 400,
      'This link cannot be used',
      `<p class="error">${reason === 'expired' ? 'The link has expired.' : reason === 'used' ? 'The link has already been used.' : 'The link is not valid.'}</p><p class="note">Ask the assistant for a new link (by calling <code>connect_account</code> where the endpoint lists it, or by repeating the call that answered with this link).</p>`,
    );

  function connectorOf(payload: LinkPayload) {
    return [...gateway.endpoints.values()].find((e) => e.connector.config.key === payload.connectorKey)?.connector;
  }

  async function connect(req: IncomingMessage, res: ServerResponse, payload: LinkPayload, token: string): Promise<number> {
    const connector = connectorOf(payload);
    const instanceId = payload.instanceId;
    if (!connector || !instanceId || !payload.jti || !gateway.endpoints.has(instanceId)) return invalid(res, 'invalid');
    const kind = connector.descriptor.credential;
    if (kind === 'managed_basic') return invalid(res, 'invalid');
    if (kind === 'oauth2') return oauthStart(req, res, payload, connector);
    const fields = CREDENTIAL_FIELDS[kind];
    // Who asked for the link: until the portal has sign-in, the page names them, so a user handed
    // someone else's link sees that it is not theirs before typing a credential into it.
    const requester = await requesterOf(payload);
    if (!requester) return invalid(res, 'invalid');
    const form: ConnectForm = { title: connector.descriptor.title, instanceId, fields, token, requester };
    if (req.method === 'POST') {
      let posted: URLSearchParams;
      try {
        posted = await readForm(req);
      } catch (error) {
        if (error instanceof BodyTooLarge) return page(res, 413, 'Too large', '<p class="error">The form was too large.</p>');
        throw error;
      }
      const values: Record<string, string> = Object.fromEntries(fields.map((f) => [f.name, (posted.get(f.name) ?? '').trim()]));
      const missing = fields.filter((f) => !values[f.name]);
      if (missing.length > 0) return connectForm(res, form, `Fill in: ${missing.map((f) => f.label).join(', ')}.`);
      // A used or expired link says so before the upstream is asked anything.
      const linkState = await gateway.store.connectLinkState(payload.jti, gateway.now());
      if (linkState !== 'ok') return invalid(res, linkState);
      // The credential is checked with the upstream first (spec `connect.verify`): one the upstream
      // refuses, or that cannot be checked now, is not stored, and the link stays usable to retry.
      const gone = new AbortController();
      res.once('close', () => gone.abort());
      const verdict = await options.checkCredential(gateway.endpoints.get(instanceId)!, payload.accountId, values, gone.signal);
      if (!verdict.ok) {
        gateway.log.info({ accountId: payload.accountId, userId: payload.userId, connector: connector.config.id, instance: instanceId, reason: verdict.reason }, 'connection not stored');
        return connectForm(res, form, verdict.text, verdict.reason === 'rejected' ? 400 : 503);
      }
      const outcome = await gateway.store.consumeConnectLink(payload.jti, gateway.now());
      if (outcome !== 'ok') return invalid(res, outcome);
      const sealed = gateway.vault.seal(JSON.stringify(values), payload.accountId, instanceId);
      await gateway.store.putConnection({ accountId: payload.accountId, instanceId, connectorKey: connector.config.key, ciphertext: sealed.ciphertext, keyVersion: sealed.keyVersion });
      await gateway.state.refresh();
      gateway.log.info({ accountId: payload.accountId, userId: payload.userId, connector: connector.config.id, instance: instanceId }, 'connection stored');
      return page(
        res,
        200,
        `${connector.descriptor.title} is connected`,
        `<p>The endpoint <code>${escapeHtml(endpointUrl(instanceId))}</code> of the account <strong>${escapeHtml(requester.account.name)}</strong> is connected. You can close this page and ask the assistant again.</p>`,
      );
    }
    // A used or expired link says so at once, not after the user typed a credential into it.
    const state = await gateway.store.connectLinkState(payload.jti, gateway.now());
    if (state !== 'ok') return invalid(res, state);
    return connectForm(res, form);
  }

  /** Where the identity provider sends the browser back (register it with the provider). */
  const redirectUri = () => `${gateway.config.publicBaseUrl}${OAUTH_CALLBACK_PATH}`;

  /**
   * An OAuth connector's connect link: a single-use state (10 minutes, bound to the link's account,
   * instance and user, and to this browser by a cookie) and a redirect to the provider's authorize
   * endpoint with PKCE S256. The link itself is consumed when the callback stores the grant.
   */
  async function oauthStart(req: IncomingMessage, res: ServerResponse, payload: LinkPayload, connector: ConnectorRuntime): Promise<number> {
    req.resume();
    if (req.method !== 'GET') return page(res, 405, 'Method not allowed', '');
    const title = `Connect ${connector.descriptor.title}`;
    const linkState = await gateway.store.connectLinkState(payload.jti!, gateway.now());
    if (linkState !== 'ok') return invalid(res, linkState);
    if (!(await requesterOf(payload))) return invalid(res, 'invalid');
    const client = gateway.oauth.clients.get(connector.config.key);
    if (!client) {
      gateway.log.warn({ connector: connector.config.id }, 'oauth connect refused: no OAuth client id is configured for this connector');
      return page(res, 503, title, '<p class="error">Connecting is not set up on this gateway yet: the operator has not registered an OAuth client for this connector.</p>');
    }
    const flow = await client.authorizeRedirect(redirectUri());
    const browser = newBrowserBinding();
    const validMs = (gateway.platform.limits.connectLinkValidSeconds ?? 600) * 1000;
    await gateway.store.createOAuthState({
      stateHash: sha256(flow.state),
      accountId: payload.accountId,
      userId: payload.userId,
      instanceId: payload.instanceId!,
      connectorKey: connector.config.key,
      linkJti: payload.jti!,
      verifierSealed: gateway.vault.seal(flow.verifier, payload.accountId, payload.instanceId!).ciphertext,
      browserHash: browser.hash,
      expiresAt: new Date(gateway.now().getTime() + validMs),
    });
    const secure = gateway.config.publicBaseUrl.startsWith('https:') ? '; Secure' : '';
    res.writeHead(302, {
      location: flow.url,
      'cache-control': 'no-store',
      'referrer-policy': 'no-referrer',
      // SameSite=Lax: sent on the provider's top-level redirect back to the callback.
      'set-cookie': `${stateCookie(flow.state)}=${browser.value}; Path=${OAUTH_CALLBACK_PATH}; Max-Age=${Math.floor(validMs / 1000)}; HttpOnly; SameSite=Lax${secure}`,
    });
    res.end();
    return 302;
  }

  /** `GET /portal/oauth/callback?code&state`: refuses a missing, reused, expired or foreign state; stores the grant. */
  async function oauthCallback(req: IncomingMessage, res: ServerResponse): Promise<number> {
    req.resume();
    const refused = (status: number, why: string) =>
      page(
        res,
        status,
        'This sign-in cannot be used',
        `<p class="error">${why}</p><p class="note">Ask the assistant for a new link (by calling <code>connect_account</code> where the endpoint lists it, or by repeating the call that answered with a link) and sign in again.</p>`,
      );
    if (req.method !== 'GET') return page(res, 405, 'Method not allowed', '');
    const params = new URL(req.url ?? '/', 'http://callback.invalid').searchParams;
    const state = params.get('state');
    if (!state || state.length > 512) return refused(400, 'The sign-in answer carries no valid state.');
    const stateHash = sha256(state);
    // The browser that started the flow holds the binding cookie; another browser (a link passed on) does not.
    const binding = cookieValue(req.headers.cookie, stateCookie(state));
    const outcome = await gateway.store.consumeOAuthState(stateHash, gateway.now());
    if (outcome.outcome !== 'ok') {
      gateway.log.info({ outcome: outcome.outcome }, 'oauth callback refused');
      return refused(
        outcome.outcome === 'expired' ? 410 : 400,
        outcome.outcome === 'expired'
          ? 'The sign-in took too long: its link has expired.'
          : outcome.outcome === 'used'
            ? 'This sign-in has already been used.'
            : 'The sign-in answer is not known to this gateway.',
      );
    }
    const flow = outcome.state;
    const fields = { accountId: flow.accountId, userId: flow.userId, instance: flow.instanceId };
    if (!binding || sha256(binding) !== flow.browserHash) {
      gateway.log.warn(fields, 'oauth callback refused: the state belongs to another browser');
      return refused(400, 'This sign-in was started in another browser or for another account.');
    }
    const endpoint = gateway.endpoints.get(flow.instanceId);
    const connector = endpoint?.connector;
    const client = connector ? gateway.oauth.clients.get(connector.config.key) : undefined;
    if (!endpoint || !connector || !client || connector.config.key !== flow.connectorKey) return refused(400, 'The sign-in answer is not known to this gateway.');
    const title = connector.descriptor.title;
    if (params.has('error')) {
      gateway.log.info({ ...fields, providerError: (params.get('error') ?? '').slice(0, 64) }, 'oauth authorize answered an error');
      return page(
        res,
        400,
        `${title} was not connected`,
        '<p class="error">The sign-in was cancelled or refused at the identity provider. Nothing was stored.</p><p class="note">Ask the assistant for a new link to try again.</p>',
      );
    }
    let verifier: string;
    try {
      verifier = gateway.vault.open(flow.verifierSealed, flow.accountId, flow.instanceId);
    } catch {
      return refused(400, 'The sign-in answer is not known to this gateway.');
    }
    const target = { accountId: flow.accountId, instanceId: flow.instanceId, connectorKey: connector.config.key };
    const done = await completeOAuthConnect(gateway, client, target, { callback: params, state, verifier, redirectUri: redirectUri() }, gateway.now());
    if (!done.ok) {
      const notConnected = (status: number, html: string) => page(res, status, `${title} was not connected`, `${html}<p class="note">Ask the assistant for a new link to try again.</p>`);
      switch (done.reason) {
        case 'exchange_failed':
          gateway.log.warn({ ...fields, tokenEndpoint: done.failure }, 'oauth code exchange failed');
          return notConnected(502, '<p class="error">The identity provider did not accept the sign-in. Nothing was stored.</p>');
        case 'no_refresh_token':
          gateway.log.info(fields, 'oauth connect refused: no refresh token in the token response');
          return notConnected(
            400,
            '<p class="error">The identity provider granted no offline access (no refresh token), so the connection could not stay signed in. Allow offline access on the consent screen. Nothing was stored.</p>',
          );
        default: {
          gateway.log.info({ ...fields, reason: done.reason, scopes: done.scopes.slice(0, 20) }, 'oauth connect refused: granted scopes');
          const list = (scopes: readonly string[]) => scopes.map((s) => `<code>${escapeHtml(s)}</code>`).join(', ');
          const detail =
            done.reason === 'missing_required'
              ? `The access granted does not include the permission this connector needs (one of: ${list(client.provider.grantedScopes.requireOneOf)}).`
              : `The access granted includes permissions this connector does not accept: ${list(done.scopes)}.`;
          return notConnected(400, `<p class="error">${detail} Nothing was stored.</p>`);
        }
      }
    }
    await gateway.state.refresh();
    gateway.log.info({ ...fields, connector: connector.config.id }, 'connection stored');
    const account = gateway.state.account(flow.accountId);
    return page(
      res,
      200,
      `${title} is connected`,
      `<p>The endpoint <code>${escapeHtml(endpointUrl(flow.instanceId))}</code>${account ? ` of the account <strong>${escapeHtml(account.name)}</strong>` : ''} is connected. You can close this page and ask the assistant again.</p>`,
    );
  }

  /** The account and user the link was issued to (the snapshot, else the store: a link from another replica). */
  async function requesterOf(payload: LinkPayload): Promise<{ account: Account; user: User } | undefined> {
    const account = gateway.state.account(payload.accountId) ?? (await gateway.store.getAccount(payload.accountId));
    const user = gateway.state.user(payload.userId) ?? (await gateway.store.getUser(payload.userId));
    if (!account || !user || user.accountId !== account.id) return undefined;
    return { account, user };
  }

  const endpointUrl = (instanceId: string) => `${gateway.config.publicBaseUrl}/${instanceId}/mcp`;

  function connectForm(res: ServerResponse, form: ConnectForm, error?: string, status = 400): number {
    const { title, instanceId, fields, token, requester } = form;
    const inputs = fields
      .map((f) => `<label for="${f.name}">${escapeHtml(f.label)}</label><input id="${f.name}" name="${f.name}" type="${f.secret ? 'password' : 'text'}" autocomplete="off" required>`)
      .join('');
    const account = escapeHtml(requester.account.name);
    const context =
      `<p>This link was requested by <strong>${escapeHtml(requester.user.name)}</strong> (${escapeHtml(requester.user.email)}) of the account <strong>${account}</strong>, ` +
      `to connect <strong>${escapeHtml(title)}</strong> for the endpoint <code>${escapeHtml(endpointUrl(instanceId))}</code> (path <code>/${escapeHtml(instanceId)}/mcp</code>).</p>` +
      `<p class="warning">Enter only a credential of <strong>${account}</strong>. Do not enter another company's credentials: whoever asked for this link reads the data they open. If you did not ask for this link yourself, close this page.</p>`;
    return page(
      res,
      error ? status : 200,
      `Connect ${title}`,
      `${context}<p class="note">The credential is stored encrypted and never shown to the assistant. Connecting again replaces it.</p>${error ? `<p class="error">${escapeHtml(error)}</p>` : ''}<form method="post" action="/portal/connect/${escapeHtml(token)}">${inputs}<button type="submit">Connect</button></form>`,
    );
  }

  async function purchase(req: IncomingMessage, res: ServerResponse, payload: LinkPayload, token: string): Promise<number> {
    const connector = connectorOf(payload);
    const user = gateway.state.user(payload.userId);
    if (!connector || !user) return invalid(res, 'invalid');
    const title = `Subscribe to ${connector.descriptor.title}`;
    if (gateway.state.isSubscribed(payload.accountId, payload.connectorKey)) return page(res, 200, title, '<p>Your company is subscribed. An administrator assigns seats on the team page.</p>');
    if (!options.selfServicePurchase) return page(res, 200, title, '<p>Subscriptions are set up by the operator of this gateway. Ask your administrator to contact them.</p>');
    if (user.role !== 'admin') return page(res, 403, title, '<p>Only an administrator of your company can subscribe. Ask an administrator to open this page.</p>');
    if (req.method === 'POST') {
      req.resume();
      await gateway.store.setSubscription(payload.accountId, payload.connectorKey, true);
      await gateway.store.setSeat(payload.userId, payload.connectorKey, true);
      await gateway.state.refresh();
      return page(res, 200, title, '<p>Subscribed. You hold a seat; assign more on the team page.</p>');
    }
    return page(
      res,
      200,
      title,
      `<p>Subscribe your company to <strong>${escapeHtml(connector.descriptor.title)}</strong> (<code>${escapeHtml(connector.config.id)}</code>).</p><form method="post" action="/portal/purchase/${escapeHtml(token)}"><button type="submit">Subscribe</button></form>`,
    );
  }

  async function team(req: IncomingMessage, res: ServerResponse, payload: LinkPayload, token: string): Promise<number> {
    const connector = connectorOf(payload);
    const viewer = gateway.state.user(payload.userId);
    if (!connector || !viewer) return invalid(res, 'invalid');
    const users = await gateway.store.listUsers(payload.accountId);
    const isAdmin = viewer.role === 'admin';
    if (req.method === 'POST') {
      if (!isAdmin) return page(res, 403, 'Team', '<p>Only an administrator can assign seats.</p>');
      const form = await readForm(req);
      const seated = new Set(form.getAll('seat'));
      for (const u of users) await gateway.store.setSeat(u.id, payload.connectorKey, seated.has(u.id));
      await gateway.state.refresh();
    }
    const rows = users
      .map((u) => {
        const has = gateway.state.hasSeat(u.id, payload.connectorKey);
        const box = isAdmin ? `<input type="checkbox" name="seat" value="${escapeHtml(u.id)}"${has ? ' checked' : ''}>` : has ? 'yes' : 'no';
        return `<tr><td>${escapeHtml(u.name)}</td><td>${escapeHtml(u.email)}</td><td>${escapeHtml(u.role)}</td><td>${box}</td></tr>`;
      })
      .join('');
    const table = `<table><tr><th>Name</th><th>Email</th><th>Role</th><th>Seat on ${escapeHtml(connector.config.id)}</th></tr>${rows}</table>`;
    const body = isAdmin
      ? `<form method="post" action="/portal/team/${escapeHtml(token)}">${table}<button type="submit">Save seats</button></form>`
      : `${table}<p class="note">Only an administrator can assign seats: ${
          users
            .filter((u) => u.role === 'admin')
            .map((u) => escapeHtml(u.email))
            .join(', ') || 'none found'
        }.</p>`;
    return page(res, 200, `Team · ${connector.descriptor.title}`, body);
  }

  async function terms(req: IncomingMessage, res: ServerResponse, payload: LinkPayload, token: string): Promise<number> {
    const user = gateway.state.user(payload.userId);
    if (!user) return invalid(res, 'invalid');
    if (req.method === 'POST') {
      req.resume();
      await gateway.store.acceptTerms(user.id, gateway.now());
      await gateway.state.refresh();
      return page(res, 200, 'Terms accepted', '<p>Thank you. Ask the assistant to call <code>connect_account</code> again.</p>');
    }
    return page(
      res,
      200,
      'Terms of service',
      `<p>The gateway reads your business systems on your behalf, read-only unless a tool says otherwise, and meters calls per account.</p><form method="post" action="/portal/terms/${escapeHtml(token)}"><button type="submit">Accept the terms</button></form>`,
    );
  }

  const handlers: Record<LinkPurpose, (req: IncomingMessage, res: ServerResponse, payload: LinkPayload, token: string) => Promise<number>> = { connect, purchase, team, terms };

  return {
    async handle(req, res, path) {
      if (path === OAUTH_CALLBACK_PATH) return oauthCallback(req, res);
      const match = /^\/portal\/(connect|purchase|team|terms)\/([A-Za-z0-9_.-]+)$/.exec(path);
      if (!match) {
        req.resume();
        const list = [
          ...new Set(
            [...gateway.endpoints.values()]
              .filter((e) => e.instance === 1)
              .map((e) => `<li><code>${escapeHtml(gateway.config.publicBaseUrl)}/${escapeHtml(e.instanceId)}/mcp</code> — ${escapeHtml(e.connector.descriptor.title)}</li>`),
          ),
        ].join('');
        return page(res, path === '/' || path === '/portal' ? 200 : 404, 'Connector gateway', `<p>MCP endpoints (POST, bearer token):</p><ul>${list}</ul>`);
      }
      if (req.method !== 'GET' && req.method !== 'POST') {
        req.resume();
        return page(res, 405, 'Method not allowed', '');
      }
      const purpose = match[1] as LinkPurpose;
      const token = match[2]!;
      const check = verifyLink(gateway.vault, token, purpose, gateway.now());
      if (!check.ok) {
        req.resume();
        return invalid(res, check.reason);
      }
      return handlers[purpose](req, res, check.payload, token);
    },
  };
}
