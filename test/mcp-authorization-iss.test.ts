// RFC 9207 on every redirect back to an MCP client (docs/decisions/mcp-authorization.md, 'MCP authorization hardening:
// public metadata addresses, iss, grants for operators'): the authorization server
// metadata says `authorization_response_iss_parameter_supported`, so each authorization response —
// the consent page's code or access_denied, and the error redirects the MCP SDK's authorize handler
// makes (invalid_target from our provider, invalid_request from its own parameter checks) — carries
// `iss`, the metadata's issuer exactly. Its own gateway: the OAuth endpoints' rate limit (60 a
// minute per address) is per process, and mcp-authorization.test.ts uses most of its own.
import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withIssuer } from '../runtime/auth/authorization-server.ts';
import { openStore } from '../runtime/store/open-store.ts';
import type { PlatformStore } from '../runtime/store/store.ts';
import { createTenant, startGateway, type StartedGateway, type Tenant } from './support/gateway.ts';
import { portalAs, type PortalClient } from './support/portal.ts';

const REDIRECT = 'http://127.0.0.1:53682/callback';
const APP_REDIRECT = 'com.example.app:/oauth/callback';
const challenge = () => createHash('sha256').update(randomBytes(32).toString('base64url')).digest('base64url');

describe('iss (and state) on every redirect back to the client (RFC 9207)', () => {
  let store: PlatformStore;
  let gw: StartedGateway;
  let tenant: Tenant;
  let portal: PortalClient;
  let issuer = '';
  let clientId = '';
  let appClientId = '';

  const resource = (id: string) => `${gw.url}/${id}/mcp`;
  const authorize = (params: Record<string, string>) =>
    fetch(`${gw.url}/oauth/authorize?${new URLSearchParams(params)}`, { redirect: 'manual' });
  const register = async (name: string, uris: string[]) => {
    const res = await fetch(`${gw.url}/oauth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ client_name: name, redirect_uris: uris }),
    });
    expect(res.status).toBe(201);
    return ((await res.json()) as { client_id: string }).client_id;
  };
  const good = () => ({
    response_type: 'code',
    client_id: clientId,
    redirect_uri: REDIRECT,
    code_challenge: challenge(),
    code_challenge_method: 'S256',
    state: 'st-9',
    resource: resource('register'),
  });
  const without = (params: Record<string, string>, name: string) =>
    Object.fromEntries(Object.entries(params).filter(([k]) => k !== name));

  /** The redirect of a response: to the client's redirect URI, with `error` and one `iss`, ours. */
  function expectBackWithIss(res: Response, error: string, redirectUri = REDIRECT, what = error): URLSearchParams {
    expect(res.status, what).toBe(302);
    const location = res.headers.get('location')!;
    expect(location.startsWith(`${redirectUri}?`), `${what}: ${location}`).toBe(true);
    const back = new URL(location).searchParams;
    expect(back.get('error'), what).toBe(error);
    expect(back.getAll('iss'), what).toEqual([issuer]);
    return back;
  }

  beforeAll(async () => {
    store = await openStore({});
    gw = await startGateway(store, { env: { RATE_LIMIT_BURST: '1000', RATE_LIMIT_PER_SECOND: '1000' } });
    tenant = await createTenant(store, { subscribe: ['register'] });
    portal = await portalAs(gw, tenant.user);
    issuer = ((await (await fetch(`${gw.url}/.well-known/oauth-authorization-server`)).json()) as { issuer: string })
      .issuer;
    clientId = await register('Iss assistant', [REDIRECT]);
    appClientId = await register('Desktop app', [APP_REDIRECT]);
  }, 60_000);
  afterAll(async () => {
    await gw?.close();
    await store?.close();
  });

  it('the issuer is the metadata issuer, the public base URL', () => {
    expect(issuer).toBe(gw.url);
  });

  type Change = (params: Record<string, string>) => Record<string, string>;
  it.each<[string, Change, string]>([
    [
      'a resource that is not an endpoint here (provider: invalid_target)',
      (p) => ({ ...p, resource: 'https://elsewhere.example/mcp' }),
      'invalid_target',
    ],
    ['no resource (provider: invalid_target)', (p) => without(p, 'resource'), 'invalid_target'],
    [
      'a state past 1024 characters (provider: invalid_request)',
      (p) => ({ ...p, state: 's'.repeat(1025) }),
      'invalid_request',
    ],
    [
      'an unsupported response type (SDK: invalid_request)',
      (p) => ({ ...p, response_type: 'token' }),
      'invalid_request',
    ],
    [
      'the plain PKCE method (SDK: invalid_request)',
      (p) => ({ ...p, code_challenge_method: 'plain' }),
      'invalid_request',
    ],
    ['no code challenge (SDK: invalid_request)', (p) => without(p, 'code_challenge'), 'invalid_request'],
    [
      'no redirect_uri, the client having one (SDK: invalid_request)',
      (p) => ({ ...without(p, 'redirect_uri'), response_type: 'token' }),
      'invalid_request',
    ],
  ])('an error redirect for %s carries iss', async (what, change, error) => {
    const params = change(good());
    const back = expectBackWithIss(await authorize(params), error, REDIRECT, what);
    // The request's state, exactly (the SDK drops it when its own check fails; the wrapper puts it back).
    expect(back.get('state'), what).toBe(params.state);
  });

  it('an error redirect of a form POST carries iss', async () => {
    const res = await fetch(`${gw.url}/oauth/authorize`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ ...good(), code_challenge_method: 'plain' }).toString(),
      redirect: 'manual',
    });
    expect(expectBackWithIss(res, 'invalid_request').get('state')).toBe('st-9');
  });

  it("an error redirect to an app's own URI scheme (no web origin) carries iss", async () => {
    const res = await authorize({
      ...good(),
      client_id: appClientId,
      redirect_uri: APP_REDIRECT,
      resource: 'https://elsewhere.example/mcp',
    });
    expectBackWithIss(res, 'invalid_target', APP_REDIRECT);
  });

  it('the consent page answers with iss (access_denied and code); the redirect to it has none', async () => {
    for (const decision of ['deny', 'allow']) {
      const started = await authorize(good());
      expect(started.status).toBe(302);
      const consentUrl = new URL(started.headers.get('location')!);
      expect(consentUrl.pathname).toBe('/portal/authorize');
      expect(consentUrl.searchParams.has('iss')).toBe(false);
      expect((await portal.get(consentUrl.href)).status).toBe(200);
      const answer = await portal.post(consentUrl.href, { decision });
      expect(answer.status).toBe(302);
      const back = new URL(answer.location!).searchParams;
      expect(back.getAll('iss')).toEqual([issuer]);
      if (decision === 'deny') expect(back.get('error')).toBe('access_denied');
      else expect(back.get('code')).toMatch(/^cgwc_/);
    }
  });

  it('pre-redirect refusals (unknown client, unregistered redirect URI) are answered, never redirected', async () => {
    const unregistered = await authorize({ ...good(), redirect_uri: 'https://attacker.example/cb' });
    expect(unregistered.status).toBe(400);
    expect(unregistered.headers.get('location')).toBeNull();
    const unknown = await authorize({ ...good(), client_id: 'no-such-client' });
    expect(unknown.status).toBe(400);
    expect(unknown.headers.get('location')).toBeNull();
  });
});

describe('withIssuer (the wrapper of the SDK handler redirects)', () => {
  const ISS = 'https://gateway.example';
  it('adds iss to a code or error response to a redirect URI of the client, compared without its query', () => {
    expect(withIssuer('https://app.example/cb?error=invalid_request&state=x', ['https://app.example/cb'], ISS)).toBe(
      'https://app.example/cb?error=invalid_request&state=x&iss=https%3A%2F%2Fgateway.example',
    );
    expect(
      new URL(
        withIssuer('https://app.example/cb?tenant=1&code=c', ['https://app.example/cb?tenant=1'], ISS),
      ).searchParams.get('iss'),
    ).toBe(ISS);
    expect(
      new URL(withIssuer('cursor://anysphere/cb?error=x', ['cursor://anysphere/cb'], ISS)).searchParams.get('iss'),
    ).toBe(ISS);
    // The request's state when an error response lacks it; never a second one, nor on a code.
    expect(
      new URL(withIssuer('https://app.example/cb?error=x', ['https://app.example/cb'], ISS, 's 1')).searchParams.get(
        'state',
      ),
    ).toBe('s 1');
    expect(
      new URL(
        withIssuer('https://app.example/cb?error=x&state=a', ['https://app.example/cb'], ISS, 'b'),
      ).searchParams.getAll('state'),
    ).toEqual(['a']);
    expect(
      new URL(withIssuer('https://app.example/cb?code=c', ['https://app.example/cb'], ISS, 'b')).searchParams.has(
        'state',
      ),
    ).toBe(false);
    // One iss, ours, whatever was there.
    expect(
      new URL(
        withIssuer('https://app.example/cb?error=x&iss=https://evil.example', ['https://app.example/cb'], ISS),
      ).searchParams.getAll('iss'),
    ).toEqual([ISS]);
  });
  it('leaves every other location unchanged', () => {
    const consent = `${ISS}/portal/authorize?request=abc.def`;
    expect(withIssuer(consent, ['https://app.example/cb'], ISS)).toBe(consent);
    expect(withIssuer('https://app.example/cb?state=x', ['https://app.example/cb'], ISS)).toBe(
      'https://app.example/cb?state=x',
    );
    expect(withIssuer('https://app.example/other?error=x', ['https://app.example/cb'], ISS, 'st')).toBe(
      'https://app.example/other?error=x',
    );
    expect(withIssuer('https://app.example/cb?error=x', [], ISS)).toBe('https://app.example/cb?error=x');
    expect(withIssuer('not a url', ['https://app.example/cb'], ISS)).toBe('not a url');
  });
});
