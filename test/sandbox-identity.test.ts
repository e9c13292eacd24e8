// The sandbox identity provider, driven over HTTP with oauth4webapi exactly as a real client would:
// each style (Entra v2, Google, Visma Connect) through authorize → consent page → callback → code
// exchange with PKCE → refresh, every refusal (PKCE, code reuse and expiry, redirect, client
// authentication), rotation per style, every switch, the control API, and verifyAccessToken.
import * as oauth from 'oauth4webapi';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  ENTRA_BC_RESOURCE,
  ENTRA_TENANT_ID,
  startIdentityProvider,
  verifyAccessToken,
} from '../sandbox/identity/index.ts';
import type { IdentityProvider, IdentityStyle } from '../sandbox/identity/index.ts';
import { listSandboxes } from '../sandbox/index.ts';

const REDIRECT = 'http://127.0.0.1:9/oauth/callback';
// Distinctive secrets (REVIEW.md): never an ordinary word.
const SECRETS: Record<IdentityStyle, string> = {
  entra: 'Zq8-entra-sEcr3t-77xk',
  google: 'Gw4-google-sEcr3t-19pv',
  visma: 'Vm2-visma-sEcr3t-53rt',
};
const CLIENTS: Record<IdentityStyle, string> = {
  entra: 'entra-client-1',
  google: 'google-client-1.apps.googleusercontent.com',
  visma: 'isv_test_1',
};
const SCOPES: Record<IdentityStyle, string> = {
  entra: 'https://api.businesscentral.dynamics.com/Financials.ReadWrite.All offline_access',
  google: 'https://www.googleapis.com/auth/webmasters.readonly',
  visma: 'dineropublicapi:read offline_access',
};
/** What each style reports as granted for SCOPES. */
const GRANTED: Record<IdentityStyle, string> = {
  entra: 'https://api.businesscentral.dynamics.com/Financials.ReadWrite.All',
  google: 'https://www.googleapis.com/auth/webmasters.readonly',
  visma: 'dineropublicapi:read offline_access',
};
/** Extra authorize parameters each style's doc names. */
const EXTRA: Record<IdentityStyle, Record<string, string>> = {
  entra: { response_mode: 'query' },
  google: { access_type: 'offline', prompt: 'consent' },
  visma: {},
};
const STYLE_LIST: IdentityStyle[] = ['entra', 'google', 'visma'];
const insecure = { [oauth.allowInsecureRequests]: true } as const;

let idp: IdentityProvider;

beforeAll(async () => {
  idp = await startIdentityProvider({
    clients: [
      ...STYLE_LIST.map((style) => ({
        style,
        clientId: CLIENTS[style],
        clientSecret: SECRETS[style],
        redirectUris: [REDIRECT],
      })),
      { style: 'entra', clientId: 'entra-client-2', clientSecret: 'Zq8-second-sEcr3t-04', redirectUris: [REDIRECT] },
      {
        style: 'visma',
        clientId: 'isv_basic_only',
        clientSecret: 'Vm2-basic-sEcr3t-88',
        redirectUris: [REDIRECT],
        authMethods: ['client_secret_basic'],
      },
    ],
  });
});
afterAll(async () => {
  await idp.close();
});
afterEach(() => {
  idp.reset();
});

function as(style: IdentityStyle): oauth.AuthorizationServer {
  return {
    issuer: idp.endpoints[style].base,
    authorization_endpoint: idp.endpoints[style].authorize,
    token_endpoint: idp.endpoints[style].token,
  };
}

interface Started {
  readonly verifier: string;
  readonly state: string;
  readonly url: URL;
}

async function authorizeUrl(style: IdentityStyle, overrides: Record<string, string | null> = {}): Promise<Started> {
  const verifier = oauth.generateRandomCodeVerifier();
  const state = oauth.generateRandomState();
  const url = new URL(idp.endpoints[style].authorize);
  const params: Record<string, string | null> = {
    client_id: CLIENTS[style],
    redirect_uri: REDIRECT,
    response_type: 'code',
    scope: SCOPES[style],
    state,
    code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    ...EXTRA[style],
    ...overrides,
  };
  for (const [k, v] of Object.entries(params)) if (v !== null) url.searchParams.set(k, v);
  return { verifier, state, url };
}

/** GET authorize without following redirects. */
async function get(url: URL | string): Promise<{ status: number; location: string | null; text: string }> {
  const res = await fetch(url, { redirect: 'manual' });
  return { status: res.status, location: res.headers.get('location'), text: await res.text() };
}

/** The consent page's form, submitted like a browser would. */
async function submitConsent(
  html: string,
  decision: 'approve' | 'deny',
  login?: string,
): Promise<{ status: number; location: string | null }> {
  const action = /<form method="post" action="([^"]+)">/.exec(html)?.[1];
  const request = /name="request" value="([^"]+)"/.exec(html)?.[1];
  const prefilled = /id="login" name="login" type="text" autocomplete="username" value="([^"]*)"/.exec(html)?.[1];
  expect(action, 'consent form action').toBeDefined();
  expect(request, 'consent request id').toBeDefined();
  const res = await fetch(new URL(action!, idp.url), {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ request: request!, login: login ?? prefilled ?? '', decision }).toString(),
  });
  await res.text();
  return { status: res.status, location: res.headers.get('location') };
}

/** Authorize → consent page → approve → the callback parameters, validated by oauth4webapi. */
async function consent(
  style: IdentityStyle,
  overrides: Record<string, string | null> = {},
  login?: string,
): Promise<Started & { callback: URLSearchParams }> {
  const started = await authorizeUrl(style, overrides);
  const page = await get(started.url);
  expect(page.status).toBe(200);
  const answer = await submitConsent(page.text, 'approve', login);
  expect(answer.status).toBe(303);
  const callback = oauth.validateAuthResponse(
    as(style),
    { client_id: CLIENTS[style] },
    new URL(answer.location!),
    started.state,
  );
  return { ...started, callback };
}

function auth(style: IdentityStyle, method: 'post' | 'basic' = 'post', secret = SECRETS[style]): oauth.ClientAuth {
  return method === 'post' ? oauth.ClientSecretPost(secret) : oauth.ClientSecretBasic(secret);
}

async function exchange(
  style: IdentityStyle,
  flow: { callback: URLSearchParams; verifier: string },
  options: { method?: 'post' | 'basic'; clientId?: string; secret?: string } = {},
): Promise<Response> {
  const client = { client_id: options.clientId ?? CLIENTS[style] };
  return oauth.authorizationCodeGrantRequest(
    as(style),
    client,
    auth(style, options.method, options.secret),
    flow.callback,
    REDIRECT,
    flow.verifier,
    insecure,
  );
}

async function codeTokens(
  style: IdentityStyle,
  flow: { callback: URLSearchParams; verifier: string },
): Promise<oauth.TokenEndpointResponse> {
  return oauth.processAuthorizationCodeResponse(as(style), { client_id: CLIENTS[style] }, await exchange(style, flow));
}

async function refresh(
  style: IdentityStyle,
  refreshToken: string,
  clientId = CLIENTS[style],
  secret = SECRETS[style],
): Promise<Response> {
  return oauth.refreshTokenGrantRequest(
    as(style),
    { client_id: clientId },
    auth(style, 'post', secret),
    refreshToken,
    insecure,
  );
}

async function refreshTokens(style: IdentityStyle, refreshToken: string): Promise<oauth.TokenEndpointResponse> {
  return oauth.processRefreshTokenResponse(
    as(style),
    { client_id: CLIENTS[style] },
    await refresh(style, refreshToken),
  );
}

/** The oauth4webapi error of a refused token response. */
async function refused(
  style: IdentityStyle,
  response: Promise<Response>,
  kind: 'code' | 'refresh' = 'code',
): Promise<oauth.ResponseBodyError> {
  const res = await response;
  const client = { client_id: CLIENTS[style] };
  const error = await (kind === 'code'
    ? oauth.processAuthorizationCodeResponse(as(style), client, res)
    : oauth.processRefreshTokenResponse(as(style), client, res)
  ).then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(oauth.ResponseBodyError);
  return error as oauth.ResponseBodyError;
}

/** Checks the body shape each style's doc gives for an error. */
function expectErrorShape(style: IdentityStyle, error: oauth.ResponseBodyError, code: string, aadsts?: number): void {
  expect(error.error).toBe(code);
  if (style === 'entra') {
    expect(error.cause).toMatchObject({
      error: code,
      error_codes: [aadsts],
      trace_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      correlation_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
    });
    expect(error.error_description).toMatch(new RegExp(`^AADSTS${aadsts}: `));
  } else if (style === 'google') {
    expect(Object.keys(error.cause).sort()).toEqual(['error', 'error_description']);
  } else {
    expect(error.cause).toEqual({ error: code });
  }
}

describe.each(STYLE_LIST)('%s style', (style) => {
  it('runs the full code + PKCE flow through the consent page, as oauth4webapi sees it', async () => {
    const flow = await consent(style);
    const tokens = await codeTokens(style, flow);
    expect(tokens.token_type).toBe('bearer');
    expect(tokens.scope).toBe(GRANTED[style]);
    expect(tokens.expires_in).toBe(style === 'google' ? 3599 : 3600);
    expect(typeof tokens.refresh_token).toBe('string');
    if (style === 'entra') expect(tokens.ext_expires_in).toBe(3600);
    const check = verifyAccessToken(tokens.access_token);
    expect(check).toMatchObject({
      valid: true,
      expired: false,
      style,
      clientId: CLIENTS[style],
      scope: GRANTED[style].split(' '),
    });
    expect(check.subject).toBe(
      { entra: 'demo@contoso.onmicrosoft.com', google: 'demo.sandbox@gmail.com', visma: 'demo@dinero.example' }[style],
    );
    expect(check.tenantId).toBe(style === 'entra' ? ENTRA_TENANT_ID : null);
    expect(idp.stats).toMatchObject({ authorizeRequests: 1, consentPagesShown: 1, approvals: 1, tokenRequests: 1 });
  });

  it('shows an accessible consent page and signs in the account typed into it', async () => {
    const started = await authorizeUrl(style);
    const page = await get(started.url);
    expect(page.text).toMatch(/<html lang="en">/);
    expect(page.text).toMatch(/<label for="login">Account<\/label> <input id="login" name="login"/);
    expect(page.text).toMatch(/<button type="submit" name="decision" value="approve">Accept<\/button>/);
    for (const scope of SCOPES[style].split(' ')) expect(page.text).toContain(`<li>${scope}</li>`);
    const answer = await submitConsent(page.text, 'approve', 'second.user@example.dk');
    const callback = oauth.validateAuthResponse(
      as(style),
      { client_id: CLIENTS[style] },
      new URL(answer.location!),
      started.state,
    );
    const tokens = await codeTokens(style, { callback, verifier: started.verifier });
    expect(verifyAccessToken(tokens.access_token).subject).toBe('second.user@example.dk');
  });

  it('redirects with access_denied and the state on cancel; the request cannot be answered twice', async () => {
    const started = await authorizeUrl(style);
    const page = await get(started.url);
    const answer = await submitConsent(page.text, 'deny');
    const error = (() => {
      try {
        oauth.validateAuthResponse(as(style), { client_id: CLIENTS[style] }, new URL(answer.location!), started.state);
        return null;
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(oauth.AuthorizationResponseError);
    expect((error as oauth.AuthorizationResponseError).error).toBe('access_denied');
    expect((await submitConsent(page.text, 'approve')).status).toBe(400);
    expect(idp.stats.denials).toBe(1);
  });

  it('auto-approve redirects at once with code and state', async () => {
    idp.setSwitches({ autoApprove: true, subject: 'auto@example.dk' });
    const started = await authorizeUrl(style);
    const answer = await get(started.url);
    expect(answer.status).toBe(302);
    const callback = oauth.validateAuthResponse(
      as(style),
      { client_id: CLIENTS[style] },
      new URL(answer.location!),
      started.state,
    );
    const tokens = await codeTokens(style, { callback, verifier: started.verifier });
    expect(verifyAccessToken(tokens.access_token).subject).toBe('auto@example.dk');
    expect(idp.stats.consentPagesShown).toBe(0);
  });

  it('accepts client_secret_basic as well as client_secret_post', async () => {
    const flow = await consent(style);
    const tokens = await oauth.processAuthorizationCodeResponse(
      as(style),
      { client_id: CLIENTS[style] },
      await exchange(style, flow, { method: 'basic' }),
    );
    expect(verifyAccessToken(tokens.access_token).valid).toBe(true);
    expect(idp.stats.tokenLog.at(-1)).toMatchObject({
      clientAuth: 'basic',
      grantType: 'authorization_code',
      status: 200,
    });
  });

  it('refuses a wrong PKCE verifier, and the code still works with the right one', async () => {
    const flow = await consent(style);
    const error = await refused(style, exchange(style, { ...flow, verifier: oauth.generateRandomCodeVerifier() }));
    expectErrorShape(style, error, 'invalid_grant', 501481);
    if (style === 'google') expect(error.error_description).toBe('Invalid code verifier.');
    expect(verifyAccessToken((await codeTokens(style, flow)).access_token).valid).toBe(true);
  });

  it('refuses a code used twice', async () => {
    const flow = await consent(style);
    await codeTokens(style, flow);
    expectErrorShape(style, await refused(style, exchange(style, flow)), 'invalid_grant', 54005);
  });

  it('refuses an expired code (the sandbox clock moves, nobody waits)', async () => {
    const flow = await consent(style);
    idp.advanceClock(style === 'visma' ? 301 : 601);
    expectErrorShape(style, await refused(style, exchange(style, flow)), 'invalid_grant', 70008);
  });

  it('refuses a code redeemed with another redirect_uri, and a code of another client', async () => {
    const flow = await consent(style);
    const res = await oauth.authorizationCodeGrantRequest(
      as(style),
      { client_id: CLIENTS[style] },
      auth(style),
      flow.callback,
      'http://127.0.0.1:9/elsewhere',
      flow.verifier,
      insecure,
    );
    const body = (await res.json()) as Record<string, unknown>;
    expect(res.status).toBe(400);
    expect(body.error).toBe({ entra: 'invalid_grant', google: 'redirect_uri_mismatch', visma: 'invalid_grant' }[style]);
    if (style === 'entra') {
      const other = await refused(
        style,
        exchange(style, flow, { clientId: 'entra-client-2', secret: 'Zq8-second-sEcr3t-04' }),
      );
      expectErrorShape(style, other, 'invalid_grant', 9002313);
    }
  });

  it('refuses a wrong client secret with invalid_client', async () => {
    const flow = await consent(style);
    const res = await exchange(style, flow, { secret: 'not-the-sEcr3t-0000' });
    expect(res.status).toBe(style === 'visma' ? 400 : 401);
    const body = (await res.json()) as Record<string, unknown>;
    expect(body.error).toBe('invalid_client');
    if (style === 'entra') expect(body.error_codes).toEqual([7000215]);
  });

  it('expires access tokens after the configured lifetime', async () => {
    idp.setSwitches({ accessTokenLifetimeSeconds: 60 });
    const tokens = await codeTokens(style, await consent(style));
    expect(tokens.expires_in).toBe(60);
    idp.advanceClock(59);
    expect(verifyAccessToken(tokens.access_token)).toMatchObject({ valid: true, expired: false });
    idp.advanceClock(1);
    expect(verifyAccessToken(tokens.access_token)).toMatchObject({ valid: false, expired: true });
  });

  it('refreshes the access token; a revoked grant is answered invalid_grant', async () => {
    const first = await codeTokens(style, await consent(style));
    const next = await refreshTokens(style, first.refresh_token!);
    expect(next.access_token).not.toBe(first.access_token);
    expect(next.scope).toBe(GRANTED[style]);
    expect(verifyAccessToken(next.access_token).valid).toBe(true);
    const live = next.refresh_token ?? first.refresh_token!;
    expect(idp.revoke({ clientId: CLIENTS[style] })).toBeGreaterThanOrEqual(1);
    const error = await refused(style, refresh(style, live), 'refresh');
    expectErrorShape(style, error, 'invalid_grant', 50173);
    if (style === 'google') expect(error.error_description).toBe('Token has been expired or revoked.');
    // Revoking the grant leaves issued access tokens alive until they expire, unless asked.
    expect(verifyAccessToken(next.access_token).valid).toBe(true);
  });

  it('revoking with accessTokens also invalidates the issued access tokens', async () => {
    const tokens = await codeTokens(style, await consent(style, {}, 'revoked.user@example.dk'));
    expect(idp.revoke({ subject: 'revoked.user@example.dk', accessTokens: true })).toBe(1);
    expect(verifyAccessToken(tokens.access_token)).toMatchObject({
      valid: false,
      expired: false,
      subject: 'revoked.user@example.dk',
    });
  });

  it('switch omitRefreshToken: the token response has no refresh_token', async () => {
    idp.setSwitches({ omitRefreshToken: true });
    const tokens = await codeTokens(style, await consent(style));
    expect(tokens.refresh_token).toBeUndefined();
    expect(typeof tokens.access_token).toBe('string');
  });

  it('switches extraScopes and dropScopes change the granted scope (and the token)', async () => {
    idp.setSwitches({ extraScopes: ['https://graph.microsoft.com/Mail.Send'] });
    const extra = await codeTokens(style, await consent(style));
    expect(extra.scope).toBe(`${GRANTED[style]} https://graph.microsoft.com/Mail.Send`);
    expect(verifyAccessToken(extra.access_token).scope).toContain('https://graph.microsoft.com/Mail.Send');
    const api = {
      entra: 'Financials.ReadWrite.All',
      google: 'https://www.googleapis.com/auth/webmasters.readonly',
      visma: 'dineropublicapi:read',
    }[style];
    idp.setSwitches({ extraScopes: [], dropScopes: [api] });
    const missing = await codeTokens(style, await consent(style));
    expect(missing.scope ?? '').not.toContain(api);
    expect(verifyAccessToken(missing.access_token).scope.join(' ')).not.toContain(api);
  });

  it('switch tokenServerError: the token endpoint answers 500 with the style body', async () => {
    const flow = await consent(style);
    idp.setSwitches({ tokenServerError: 500 });
    const res = await exchange(style, flow);
    expect(res.status).toBe(500);
    expect(((await res.json()) as { error: string }).error).toBe(
      { entra: 'temporarily_unavailable', google: 'internal_failure', visma: 'server_error' }[style],
    );
    idp.setSwitches({ tokenServerError: null });
    expect(verifyAccessToken((await codeTokens(style, flow)).access_token).valid).toBe(true);
  });

  it('switch invalidClient: the right secret is refused as invalid_client', async () => {
    const flow = await consent(style);
    idp.setSwitches({ invalidClient: true });
    const res = await exchange(style, flow);
    expect(((await res.json()) as { error: string }).error).toBe('invalid_client');
    expect(res.status).toBe(style === 'visma' ? 400 : 401);
  });

  it('switch tokenDelayMs holds the token answer until it has passed', async () => {
    const flow = await consent(style);
    idp.setSwitches({ tokenDelayMs: 600_000 });
    const controller = new AbortController();
    const pending = oauth.authorizationCodeGrantRequest(
      as(style),
      { client_id: CLIENTS[style] },
      auth(style),
      flow.callback,
      REDIRECT,
      flow.verifier,
      { ...insecure, signal: controller.signal },
    );
    await vi.waitFor(() => expect(idp.stats.tokenRequests).toBe(1));
    // Received but not answered: nothing logged (the log is written with the answer).
    expect(idp.stats.tokenLog).toEqual([]);
    controller.abort();
    await expect(pending).rejects.toThrow();
    // A short delay still answers, and the (unredeemed) code works.
    idp.setSwitches({ tokenDelayMs: 20 });
    expect(verifyAccessToken((await codeTokens(style, flow)).access_token).valid).toBe(true);
  });

  it('switch refreshError refuses refreshes with the chosen error', async () => {
    const tokens = await codeTokens(style, await consent(style));
    idp.setSwitches({ refreshError: 'interaction_required' });
    const error = await refused(style, refresh(style, tokens.refresh_token!), 'refresh');
    if (style === 'entra') expectErrorShape(style, error, 'interaction_required', 50076);
    else expect(error.error).toBe('invalid_grant');
  });

  it('never puts a secret, code or token into its stats', async () => {
    const flow = await consent(style);
    const tokens = await codeTokens(style, flow);
    await refresh(style, tokens.refresh_token!);
    await exchange(style, flow, { secret: 'not-the-sEcr3t-0000' });
    const text = JSON.stringify(idp.stats);
    for (const secret of [
      SECRETS[style],
      'not-the-sEcr3t-0000',
      flow.callback.get('code')!,
      flow.verifier,
      tokens.access_token,
      tokens.refresh_token!,
    ])
      expect(text).not.toContain(secret);
    expect(idp.stats.tokenLog.map((r) => [r.grantType, r.status])).toEqual([
      ['authorization_code', 200],
      ['refresh_token', 200],
      ['authorization_code', style === 'visma' ? 400 : 401],
    ]);
  });
});

describe('refresh tokens per style', () => {
  it.each(['entra', 'visma'] as const)(
    '%s rotates: a new refresh token each time, the used one is refused',
    async (style) => {
      const first = await codeTokens(style, await consent(style));
      const second = await refreshTokens(style, first.refresh_token!);
      expect(second.refresh_token).toBeDefined();
      expect(second.refresh_token).not.toBe(first.refresh_token);
      expectErrorShape(
        style,
        await refused(style, refresh(style, first.refresh_token!), 'refresh'),
        'invalid_grant',
        70000,
      );
      const third = await refreshTokens(style, second.refresh_token!);
      expect(verifyAccessToken(third.access_token).valid).toBe(true);
    },
  );

  it('google keeps its refresh token: none in the refresh answer, the same one works again', async () => {
    const first = await codeTokens('google', await consent('google'));
    const second = await refreshTokens('google', first.refresh_token!);
    expect(second.refresh_token).toBeUndefined();
    expect(second.expires_in).toBe(3599);
    const third = await refreshTokens('google', first.refresh_token!);
    expect(verifyAccessToken(third.access_token).valid).toBe(true);
  });

  it('google gives a refresh token only with access_type=offline, on first consent unless prompt=consent', async () => {
    const login = 'first.consent@example.dk';
    const online = await codeTokens('google', await consent('google', { access_type: null, prompt: null }, login));
    expect(online.refresh_token).toBeUndefined();
    const again = await codeTokens('google', await consent('google', { prompt: null }, login));
    expect(again.refresh_token).toBeUndefined();
    const forced = await codeTokens('google', await consent('google', { prompt: 'consent' }, login));
    expect(typeof forced.refresh_token).toBe('string');
    const fresh = await codeTokens('google', await consent('google', { prompt: null }, 'never.consented@example.dk'));
    expect(typeof fresh.refresh_token).toBe('string');
  });

  it('entra refresh tokens die after 90 days unused, google ones after 6 months unused', async () => {
    const entra = await codeTokens('entra', await consent('entra'));
    idp.advanceClock(89 * 86_400);
    const kept = await refreshTokens('entra', entra.refresh_token!);
    idp.advanceClock(90 * 86_400);
    expectErrorShape(
      'entra',
      await refused('entra', refresh('entra', kept.refresh_token!), 'refresh'),
      'invalid_grant',
      700082,
    );

    const google = await codeTokens('google', await consent('google'));
    idp.advanceClock(182 * 86_400);
    await refreshTokens('google', google.refresh_token!);
    idp.advanceClock(182 * 86_400);
    await refreshTokens('google', google.refresh_token!);
    idp.advanceClock(183 * 86_400);
    expect((await refused('google', refresh('google', google.refresh_token!), 'refresh')).error_description).toBe(
      'Token has been expired or revoked.',
    );
  });

  it.each([
    ['entra', 'https://api.businesscentral.dynamics.com/Financials.ReadWrite.All'],
    ['visma', 'dineropublicapi:read'],
  ] as const)('%s issues no refresh token without offline_access', async (style, scope) => {
    const tokens = await codeTokens(style, await consent(style, { scope }));
    expect(tokens.refresh_token).toBeUndefined();
  });

  it('entra qualifies bare API scopes and does not echo offline_access or the OpenID scopes', async () => {
    const tokens = await codeTokens(
      'entra',
      await consent('entra', {
        scope: 'openid profile email offline_access Financials.ReadWrite.All user_impersonation',
      }),
    );
    expect(tokens.scope).toBe(`${ENTRA_BC_RESOURCE}Financials.ReadWrite.All ${ENTRA_BC_RESOURCE}user_impersonation`);
  });
});

describe('authorize request checks', () => {
  it('entra refuses a personal Microsoft account on its sign-in page (organisations endpoint)', async () => {
    const started = await authorizeUrl('entra');
    const page = await get(started.url);
    const action = /<form method="post" action="([^"]+)">/.exec(page.text)![1]!;
    const request = /name="request" value="([^"]+)"/.exec(page.text)![1]!;
    const res = await fetch(new URL(action, idp.url), {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ request, login: 'someone@outlook.com', decision: 'approve' }).toString(),
    });
    expect(res.status).toBe(200);
    const again = await res.text();
    expect(again).toMatch(/<p role="alert">You can&#39;t sign in here with a personal account/);
    // Same request, now with a work account.
    const answer = await submitConsent(again, 'approve', 'worker@contoso.onmicrosoft.com');
    const callback = oauth.validateAuthResponse(
      as('entra'),
      { client_id: CLIENTS.entra },
      new URL(answer.location!),
      started.state,
    );
    expect(
      verifyAccessToken((await codeTokens('entra', { callback, verifier: started.verifier })).access_token).subject,
    ).toBe('worker@contoso.onmicrosoft.com');
  });

  it('shows an error page, and redirects nowhere, for an unknown client or an unregistered redirect_uri', async () => {
    const cases: Record<string, string | null>[] = [
      { client_id: 'nobody' },
      { client_id: CLIENTS.google },
      { redirect_uri: 'http://127.0.0.1:9/evil' },
      { redirect_uri: null },
    ];
    for (const overrides of cases) {
      const answer = await get((await authorizeUrl('entra', overrides)).url);
      expect(answer.status, JSON.stringify(overrides)).toBe(400);
      expect(answer.location).toBeNull();
      expect(answer.text).toMatch(/role="alert"/);
    }
  });

  it.each([
    ['no code_challenge', { code_challenge: null }, 'invalid_request'],
    ['code_challenge_method plain', { code_challenge_method: 'plain' }, 'invalid_request'],
    ['no code_challenge_method', { code_challenge_method: null }, 'invalid_request'],
    ['response_type token', { response_type: 'token' }, 'unsupported_response_type'],
    ['no scope', { scope: null }, 'invalid_scope'],
    ['an unknown scope', { scope: 'Financials.ReadWrite.All Directory.ReadWrite.All' }, 'invalid_scope'],
    ['no API scope', { scope: 'openid offline_access' }, 'invalid_scope'],
    ['response_mode fragment', { response_mode: 'fragment' }, 'invalid_request'],
  ] as const)('redirects %s back as an error with the state', async (_name, overrides, error) => {
    const started = await authorizeUrl('entra', overrides);
    const answer = await get(started.url);
    expect(answer.status).toBe(302);
    const params = new URL(answer.location!).searchParams;
    expect(params.get('error')).toBe(error);
    expect(params.get('error_description')).toMatch(/^AADSTS\d+: /);
    expect(params.get('state')).toBe(started.state);
    expect(params.get('code')).toBeNull();
  });

  it('requires a state (redirected as invalid_request without one)', async () => {
    const answer = await get((await authorizeUrl('visma', { state: null })).url);
    expect(new URL(answer.location!).searchParams.get('error')).toBe('invalid_request');
  });

  it('google refuses an access_type other than online/offline', async () => {
    const answer = await get((await authorizeUrl('google', { access_type: 'forever' })).url);
    expect(new URL(answer.location!).searchParams.get('error')).toBe('invalid_request');
  });

  it('prompt=none succeeds only after an earlier consent', async () => {
    const login = 'silent.user@example.dk';
    const before = await get((await authorizeUrl('entra', { prompt: 'none', login_hint: login })).url);
    expect(new URL(before.location!).searchParams.get('error')).toBe('interaction_required');
    await codeTokens('entra', await consent('entra', {}, login));
    const after = await get((await authorizeUrl('entra', { prompt: 'none', login_hint: login })).url);
    expect(new URL(after.location!).searchParams.get('code')).toMatch(/./);
  });
});

describe('token endpoint checks', () => {
  it('refuses two client authentication methods at once, and a method the client is not registered for', async () => {
    const flow = await consent('entra');
    const res = await fetch(idp.endpoints.entra.token, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: `Basic ${Buffer.from(`${CLIENTS.entra}:${SECRETS.entra}`).toString('base64')}`,
      },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        code: flow.callback.get('code')!,
        redirect_uri: REDIRECT,
        code_verifier: flow.verifier,
        client_secret: SECRETS.entra,
      }).toString(),
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: string }).error).toBe('invalid_request');

    const visma = await consent('visma', { client_id: 'isv_basic_only' });
    const client = { client_id: 'isv_basic_only' };
    const post = await oauth.authorizationCodeGrantRequest(
      as('visma'),
      client,
      oauth.ClientSecretPost('Vm2-basic-sEcr3t-88'),
      visma.callback,
      REDIRECT,
      visma.verifier,
      insecure,
    );
    expect(((await post.json()) as { error: string }).error).toBe('invalid_client');
    const basic = await oauth.authorizationCodeGrantRequest(
      as('visma'),
      client,
      oauth.ClientSecretBasic('Vm2-basic-sEcr3t-88'),
      visma.callback,
      REDIRECT,
      visma.verifier,
      insecure,
    );
    expect(
      verifyAccessToken((await oauth.processAuthorizationCodeResponse(as('visma'), client, basic)).access_token).valid,
    ).toBe(true);
  });

  it('refuses a missing code_verifier, an unknown grant type and a body that is not form-encoded', async () => {
    const flow = await consent('google');
    const post = (body: Record<string, string>, type = 'application/x-www-form-urlencoded') =>
      fetch(idp.endpoints.google.token, {
        method: 'POST',
        headers: { 'content-type': type },
        body: type.includes('json') ? JSON.stringify(body) : new URLSearchParams(body).toString(),
      });
    const base = {
      client_id: CLIENTS.google,
      client_secret: SECRETS.google,
      redirect_uri: REDIRECT,
      code: flow.callback.get('code')!,
    };
    expect(await (await post({ ...base, grant_type: 'authorization_code' })).json()).toEqual({
      error: 'invalid_grant',
      error_description: 'Missing code verifier.',
    });
    expect(await (await post({ ...base, grant_type: 'password' })).json()).toEqual({
      error: 'unsupported_grant_type',
      error_description: 'Invalid grant_type: password',
    });
    expect(
      (await post({ ...base, grant_type: 'authorization_code', code_verifier: flow.verifier }, 'application/json'))
        .status,
    ).toBe(400);
    // None of those consumed the code.
    expect(verifyAccessToken((await codeTokens('google', flow)).access_token).valid).toBe(true);
  });

  it('a refresh cannot widen the granted scope', async () => {
    const tokens = await codeTokens('entra', await consent('entra'));
    const res = await oauth.refreshTokenGrantRequest(
      as('entra'),
      { client_id: CLIENTS.entra },
      auth('entra'),
      tokens.refresh_token!,
      {
        ...insecure,
        additionalParameters: { scope: 'Financials.ReadWrite.All user_impersonation' },
      },
    );
    expectErrorShape('entra', await refused('entra', Promise.resolve(res), 'refresh'), 'invalid_scope', 70011);
  });
});

describe('switches per client and the control API', () => {
  it('a per-client switch leaves the other clients alone', async () => {
    idp.setSwitches({ omitRefreshToken: true }, 'entra-client-2');
    const mine = await codeTokens('entra', await consent('entra'));
    expect(typeof mine.refresh_token).toBe('string');
    const started = await authorizeUrl('entra', { client_id: 'entra-client-2' });
    const answer = await submitConsent((await get(started.url)).text, 'approve');
    const callback = oauth.validateAuthResponse(
      as('entra'),
      { client_id: 'entra-client-2' },
      new URL(answer.location!),
      started.state,
    );
    const res = await oauth.authorizationCodeGrantRequest(
      as('entra'),
      { client_id: 'entra-client-2' },
      oauth.ClientSecretPost('Zq8-second-sEcr3t-04'),
      callback,
      REDIRECT,
      started.verifier,
      insecure,
    );
    const theirs = await oauth.processAuthorizationCodeResponse(as('entra'), { client_id: 'entra-client-2' }, res);
    expect(theirs.refresh_token).toBeUndefined();
  });

  it('registers clients, sets switches, revokes and moves the clock over HTTP', async () => {
    const control = async (path: string, body?: unknown) => {
      const res = await fetch(
        `${idp.url}/__sandbox/${path}`,
        body === undefined
          ? {}
          : { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) },
      );
      return { status: res.status, json: (await res.json()) as Record<string, unknown> };
    };
    expect(
      (
        await control('clients', {
          style: 'google',
          clientId: 'late-client',
          clientSecret: 'Lc7-late-sEcr3t-61',
          redirectUris: [REDIRECT],
        })
      ).status,
    ).toBe(200);
    expect((await control('clients', { style: 'okta', clientId: 'x', redirectUris: [REDIRECT] })).status).toBe(400);
    expect(await control('switches', { autoApprove: 'yes' })).toEqual({
      status: 400,
      json: {
        error: 'invalid value for autoApprove: "yes"',
        switches: expect.arrayContaining(['autoApprove', 'tokenDelayMs']),
      },
    });
    expect((await control('switches', ['autoApprove'])).status).toBe(400);
    expect(
      (await control('switches?client=late-client', { autoApprove: true, accessTokenLifetimeSeconds: 30 })).json,
    ).toMatchObject({ autoApprove: true, accessTokenLifetimeSeconds: 30 });
    expect((await control('switches')).json.autoApprove).toBe(false);

    const started = await authorizeUrl('google', { client_id: 'late-client' });
    const answer = await get(started.url);
    expect(answer.status).toBe(302);
    const client = { client_id: 'late-client' };
    const callback = oauth.validateAuthResponse(as('google'), client, new URL(answer.location!), started.state);
    const res = await oauth.authorizationCodeGrantRequest(
      as('google'),
      client,
      oauth.ClientSecretPost('Lc7-late-sEcr3t-61'),
      callback,
      REDIRECT,
      started.verifier,
      insecure,
    );
    const tokens = await oauth.processAuthorizationCodeResponse(as('google'), client, res);
    expect(tokens.expires_in).toBe(30);

    expect((await control('clock', { advanceSeconds: 30 })).status).toBe(200);
    expect(verifyAccessToken(tokens.access_token).expired).toBe(true);
    expect((await control('revoke', { clientId: 'late-client' })).json).toEqual({ revoked: 1 });
    const again = await oauth.refreshTokenGrantRequest(
      as('google'),
      client,
      oauth.ClientSecretPost('Lc7-late-sEcr3t-61'),
      tokens.refresh_token!,
      insecure,
    );
    expect(await again.json()).toEqual({
      error: 'invalid_grant',
      error_description: 'Token has been expired or revoked.',
    });
    expect((await control('stats')).json.tokenRequests).toBe(2);
    expect((await control('reset', {})).status).toBe(200);
    expect((await control('switches?client=late-client')).json.autoApprove).toBe(false);
  });

  it('issueGrant seeds a connection without the browser', () => {
    const tokens = idp.issueGrant({
      clientId: CLIENTS.entra,
      scope: SCOPES.entra.split(' '),
      subject: 'seeded@contoso.onmicrosoft.com',
    });
    expect(tokens.scope).toBe(GRANTED.entra);
    expect(typeof tokens.refresh_token).toBe('string');
    expect(verifyAccessToken(tokens.access_token)).toMatchObject({
      valid: true,
      subject: 'seeded@contoso.onmicrosoft.com',
    });
  });
});

describe('verifyAccessToken and discovery', () => {
  it('knows nothing of unknown tokens, nor of a closed provider', async () => {
    expect(verifyAccessToken('made-up')).toMatchObject({ valid: false, expired: false, subject: null, scope: [] });
    const other = await startIdentityProvider({
      clients: [{ style: 'visma', clientId: 'isv_x', clientSecret: 'Xx9-other-sEcr3t-12', redirectUris: [REDIRECT] }],
    });
    const tokens = other.issueGrant({ clientId: 'isv_x', scope: ['dineropublicapi:read'] });
    expect(verifyAccessToken(tokens.access_token).valid).toBe(true);
    await other.close();
    expect(verifyAccessToken(tokens.access_token).valid).toBe(false);
  });

  it('is skipped by sandbox discovery (it is not a connector sandbox)', async () => {
    const connectors = (await listSandboxes()).map((s) => s.connector);
    expect(connectors).not.toContain('identity');
    expect(connectors.length).toBeGreaterThan(0);
  });
});
