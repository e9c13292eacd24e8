// Sandbox identity provider: one HTTP server serving three OAuth 2.0 provider styles, each under
// its own path prefix (the real host's root maps to the prefix), built from the upstream docs:
//
//   entra   {url}/entra/organizations/oauth2/v2.0/authorize | …/token     (../shared/upstreams/erp.md)
//   google  {url}/google/o/oauth2/v2/auth | {url}/google/token             (../shared/upstreams/search.md)
//   visma   {url}/visma/connect/authorize | {url}/visma/connect/token      (../shared/upstreams/books.md)
//
// Authorize (GET) checks client_id and the exact redirect_uri (failures there are an HTML error
// page: nothing is redirected to an unregistered address), then response_type=code, known scopes,
// a non-empty state and PKCE (code_challenge with code_challenge_method=S256); those failures are
// redirected as `error`/`error_description`/`state`. A valid request shows an accessible consent
// page (label, input, buttons) or, with `autoApprove`, redirects at once with `code` and `state`.
//
// Token (POST, form-encoded): client authentication by client_secret_post or client_secret_basic
// (one at a time), `authorization_code` (single-use codes that expire, redirect_uri and the PKCE
// verifier checked) and `refresh_token` (Entra and Visma rotate: the used refresh token dies;
// Google keeps its refresh token and returns none on refresh; unused for 90 days (Entra) or 6
// months (Google) a refresh token expires). Error bodies are each style's. Entra's sign-in page
// refuses personal Microsoft accounts (outlook/hotmail/live/msn addresses).
//
// Access tokens are opaque, short-lived (configurable) and live in this process's memory:
// `verifyAccessToken(token)` lets another sandbox (the ERP's) check a bearer token.
//
// Time is the sandbox's own clock (`now` option, or `advanceClock`), so tests expire codes and
// tokens without waiting.
//
// Sandbox-only controls (no auth):
//   GET  /__sandbox/switches[?client=ID]   switches (global, or the overrides of one client)
//   POST /__sandbox/switches[?client=ID]   partial switches → the switches after the change
//   POST /__sandbox/clients                { style, clientId, clientSecret?, redirectUris, authMethods? }
//   POST /__sandbox/revoke                 { clientId?, subject?, accessTokens? } → { revoked }
//   POST /__sandbox/clock                  { advanceSeconds } → { now }
//   GET  /__sandbox/stats                  counters and the token-request log (no secrets)
//   POST /__sandbox/reset                  default switches, empty stats (clients and grants stay)
//
// Run as a script: `node sandbox/identity/server.ts` listens on 127.0.0.1:4110
// (IDENTITY_SANDBOX_PORT overrides) with a demo client per style and prints the endpoints.
//
// This file routes requests; the endpoints are authorize.ts and token.ts, the controls
// controls.ts, the state and grant operations state.ts, the answers pages.ts.

import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer } from 'node:http';
import {
  closeOnce,
  closeOnSignals,
  findRoute,
  listen,
  PendingDelays,
  parseJsonLoose,
  type Route,
  readBody,
  sendText,
  switchError,
} from '../http-kit.ts';
import { handleAuthorize, handleConsent } from './authorize.ts';
import { serveIdentityControl } from './controls.ts';
import { sendJson } from './pages.ts';
import { type IdentityState, issueGrant, live, registerClient, resetStats, revoke, setSwitches } from './state.ts';
import { IDENTITY_STYLES, STYLES } from './styles.ts';
import type { IdentityStyle, StyleDefinition } from './styles.ts';
import { defaultSwitches, SWITCH_CHECKS } from './switches.ts';
import { handleToken } from './token.ts';
import type { ClientRegistration, IdentityProvider, IdentityProviderOptions, StyleEndpoints } from './types.ts';

type EndpointHandler = (
  s: IdentityState,
  req: IncomingMessage,
  res: ServerResponse,
  style: StyleDefinition,
  url: URL,
) => Promise<void>;

/** Each style's authorize, consent and token endpoints under its prefix. */
const ENDPOINT_ROUTES: readonly Route<{ style: StyleDefinition; serve: EndpointHandler }>[] = Object.values(
  STYLES,
).flatMap((style) => [
  // The authorize endpoint answers synchronously (its errors are caught like the others').
  {
    path: style.prefix + style.authorizePath,
    handle: { style, serve: async (s, req, res, st, url) => handleAuthorize(s, req, res, st, url.searchParams) },
  },
  { path: style.prefix + style.consentPath, handle: { style, serve: handleConsent } },
  { path: style.prefix + style.tokenPath, handle: { style, serve: handleToken } },
]);

function newState(options: IdentityProviderOptions): IdentityState {
  const baseClock = options.now ?? Date.now;
  const initial = options.switches ?? {};
  const problem = switchError(initial, SWITCH_CHECKS);
  if (problem !== undefined) throw new TypeError(`startIdentityProvider: ${problem}`);
  const s: IdentityState = {
    now: () => baseClock() + s.offsetMs,
    offsetMs: 0,
    switches: { ...defaultSwitches(), ...initial },
    clientSwitches: new Map(),
    clients: new Map(),
    pending: new Map(),
    codes: new Map(),
    grants: new Map(),
    refreshTokens: new Map(),
    accessTokens: new Map(),
    consents: new Set(),
    stats: { authorizeRequests: 0, consentPagesShown: 0, approvals: 0, denials: 0, tokenRequests: 0, tokenLog: [] },
    delays: new PendingDelays(),
  };
  for (const client of options.clients ?? []) registerClient(s, client);
  return s;
}

/** Starts the identity provider on 127.0.0.1 (or `host`); resolves once it listens. */
export async function startIdentityProvider(options: IdentityProviderOptions = {}): Promise<IdentityProvider> {
  const s = newState(options);
  const instance = { accessTokens: s.accessTokens, now: s.now };

  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://sandbox.invalid');
    const fail = (): void => {
      if (!res.headersSent) sendJson(res, 500, { error: 'sandbox error' });
      else res.destroy();
    };
    if (url.pathname.startsWith('/__sandbox/')) {
      readBody(req)
        .then(({ text }) => serveIdentityControl(s, res, req.method ?? 'GET', url, parseJsonLoose(text)))
        .catch(fail);
      return;
    }
    const route = findRoute(ENDPOINT_ROUTES, req.method ?? 'GET', url.pathname);
    if (route === undefined) return sendText(res, 404, 'Not Found');
    try {
      route.handle.serve(s, req, res, route.handle.style, url).catch(fail);
    } catch {
      fail();
    }
  });

  const listening = await listen(server, options.port ?? 0, options.host ?? '127.0.0.1');
  const { origin } = listening;
  const endpoints = Object.fromEntries(
    IDENTITY_STYLES.map((name) => {
      const style = STYLES[name];
      return [
        name,
        {
          base: origin + style.prefix,
          authorize: origin + style.prefix + style.authorizePath,
          token: origin + style.prefix + style.tokenPath,
        },
      ];
    }),
  ) as Record<IdentityStyle, StyleEndpoints>;
  live.add(instance);
  const closeServer = closeOnce(server, s.delays);

  return {
    url: origin,
    port: listening.port,
    endpoints,
    stats: s.stats,
    get switches() {
      return { ...s.switches };
    },
    registerClient: (client) => registerClient(s, client),
    setSwitches: (partial, clientId) => setSwitches(s, partial, clientId),
    revoke: (filter) => revoke(s, filter),
    advanceClock(seconds) {
      if (!Number.isFinite(seconds) || seconds < 0)
        throw new TypeError('advanceClock: seconds must be a non-negative number');
      s.offsetMs += seconds * 1000;
    },
    now: s.now,
    issueGrant: (input) => issueGrant(s, input),
    resetStats: () => resetStats(s),
    reset() {
      s.switches = defaultSwitches();
      s.clientSwitches = new Map();
      resetStats(s);
    },
    close() {
      live.delete(instance);
      return closeServer();
    },
  };
}

/** Demo clients, one per style, for `node sandbox/identity/server.ts` and the start banner. */
export function demoClients(redirectUri: string): ClientRegistration[] {
  return [
    { style: 'entra', clientId: 'demo-entra-client', clientSecret: 'demo-entra-secret', redirectUris: [redirectUri] },
    {
      style: 'google',
      clientId: 'demo-google-client.apps.googleusercontent.com',
      clientSecret: 'demo-google-secret',
      redirectUris: [redirectUri],
    },
    { style: 'visma', clientId: 'isv_demo', clientSecret: 'demo-visma-secret', redirectUris: [redirectUri] },
  ];
}

if (import.meta.main) {
  const port = Number(process.env.IDENTITY_SANDBOX_PORT ?? 4110);
  const redirectUri = process.env.IDENTITY_SANDBOX_REDIRECT_URI ?? 'http://127.0.0.1:3000/oauth/callback';
  const idp = await startIdentityProvider({ port, clients: demoClients(redirectUri) });
  process.stdout.write(`${idp.url}\n`);
  for (const style of IDENTITY_STYLES)
    process.stdout.write(
      `  ${style.padEnd(6)} authorize ` +
        `${idp.endpoints[style].authorize}\n         token     ${idp.endpoints[style].token}\n`,
    );
  process.stdout.write(`Demo clients redirect to ${redirectUri} (IDENTITY_SANDBOX_REDIRECT_URI overrides).\n`);
  closeOnSignals(() => idp.close());
}
