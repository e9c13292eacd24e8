// The identity provider's `/__sandbox/` controls as a route table: switches (global or one
// client's), client registration, revocation, the clock, stats and reset.
import type { ServerResponse } from 'node:http';
import { findRoute, type Route, switchError } from '../http-kit.ts';
import { sendJson } from './pages.ts';
import { effective, type IdentityState, registerClient, resetStats, revoke, setSwitches } from './state.ts';
import { defaultSwitches, isInt, isPlainObject, registrationProblem, SWITCH_CHECKS } from './switches.ts';
import type { ClientRegistration, IdentitySwitches } from './types.ts';

interface ControlRequest {
  readonly s: IdentityState;
  readonly res: ServerResponse;
  /** The parsed JSON body (the text when not JSON, undefined when empty). */
  readonly body: unknown;
  /** `?client=ID`: one client's switch overrides. */
  readonly clientId: string | undefined;
}

type ControlHandler = (request: ControlRequest) => void;

const CONTROL_ROUTES: readonly Route<ControlHandler>[] = [
  {
    method: 'GET',
    path: '/__sandbox/switches',
    handle: ({ s, res, clientId }) => sendJson(res, 200, effective(s, clientId ?? null)),
  },
  {
    method: 'POST',
    path: '/__sandbox/switches',
    handle: ({ s, res, body, clientId }) => {
      const issue = switchError(body, SWITCH_CHECKS);
      if (issue !== undefined) return sendJson(res, 400, { error: issue, switches: Object.keys(SWITCH_CHECKS) });
      sendJson(res, 200, setSwitches(s, body as Partial<IdentitySwitches>, clientId));
    },
  },
  {
    method: 'POST',
    path: '/__sandbox/clients',
    handle: ({ s, res, body }) => {
      const issue = registrationProblem(body);
      if (issue !== null) return sendJson(res, 400, { error: issue });
      registerClient(s, body as unknown as ClientRegistration);
      sendJson(res, 200, { registered: (body as { clientId: string }).clientId });
    },
  },
  {
    method: 'POST',
    path: '/__sandbox/revoke',
    handle: ({ s, res, body }) => {
      if (!isPlainObject(body)) return sendJson(res, 400, { error: 'expected { clientId?, subject?, accessTokens? }' });
      const filter = {
        clientId: typeof body.clientId === 'string' ? body.clientId : undefined,
        subject: typeof body.subject === 'string' ? body.subject : undefined,
        accessTokens: body.accessTokens === true,
      };
      sendJson(res, 200, { revoked: revoke(s, filter) });
    },
  },
  {
    method: 'POST',
    path: '/__sandbox/clock',
    handle: ({ s, res, body }) => {
      if (!isPlainObject(body) || !isInt(0, 10 * 365 * 86_400)(body.advanceSeconds))
        return sendJson(res, 400, { error: 'expected { advanceSeconds: non-negative integer }' });
      s.offsetMs += (body.advanceSeconds as number) * 1000;
      sendJson(res, 200, { now: new Date(s.now()).toISOString() });
    },
  },
  { method: 'GET', path: '/__sandbox/stats', handle: ({ s, res }) => sendJson(res, 200, s.stats) },
  {
    method: 'POST',
    path: '/__sandbox/reset',
    handle: ({ s, res }) => {
      s.switches = defaultSwitches();
      s.clientSwitches = new Map();
      resetStats(s);
      sendJson(res, 200, s.switches);
    },
  },
];

const CONTROL_LIST = [
  'GET|POST /__sandbox/switches[?client=ID]',
  'POST /__sandbox/clients',
  'POST /__sandbox/revoke',
  'POST /__sandbox/clock',
  'GET /__sandbox/stats',
  'POST /__sandbox/reset',
];

/** Answers one control request (its body already read). */
export function serveIdentityControl(
  s: IdentityState,
  res: ServerResponse,
  method: string,
  url: URL,
  body: unknown,
): void {
  const route = findRoute(CONTROL_ROUTES, method, url.pathname);
  if (route !== undefined) route.handle({ s, res, body, clientId: url.searchParams.get('client') ?? undefined });
  else sendJson(res, 404, { error: `no sandbox control at ${method} ${url.pathname}`, controls: CONTROL_LIST });
}
