// A minimal identity provider for the OAuth platform tests (not the sandbox: sandbox/identity/ is
// built separately from the upstream docs). Authorize answers at once with a redirect carrying a
// code (no consent page); the token endpoint is form-encoded, checks the client, the redirect URI
// and PKCE S256, issues rotating refresh tokens, and has switches for the failures under test.
import { createHash, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeIdpOptions {
  readonly clientId: string;
  readonly clientSecret: string;
}

export interface FakeIdp {
  readonly url: string;
  /** What the next code grants (mutable switches). */
  readonly next: { scope: string; refreshToken: boolean; expiresIn: number };
  /** How the token endpoint answers a refresh: normally, or with a failure. */
  refreshMode: 'ok' | 'invalid_grant' | 'invalid_client' | 'server_error';
  /** Token endpoint requests, by grant type. */
  readonly requests: { authorization_code: number; refresh_token: number };
  /** Every authorize request's query, in order. */
  readonly authorizeQueries: URLSearchParams[];
  /** Every token issued (to check none reaches a log or a result). */
  readonly issued: string[];
  /** Refresh responses wait for this while it is set (to overlap two refreshes). */
  hold: Promise<void> | undefined;
  /** Called when a refresh request arrives (before `hold`). */
  onRefresh: (() => void) | undefined;
  /** Stores a refresh token the provider knows (a grant made outside the flow). */
  grantRefreshToken(scope: string): string;
  close(): Promise<void>;
}

const b64url = (buf: Buffer) => buf.toString('base64url');

async function formOf(req: IncomingMessage): Promise<URLSearchParams> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
}

export async function startFakeIdp(options: FakeIdpOptions): Promise<FakeIdp> {
  const codes = new Map<
    string,
    { challenge: string; redirectUri: string; scope: string; refreshToken: boolean; expiresIn: number }
  >();
  const refreshTokens = new Map<string, string>(); // token → scope
  const token = (prefix: string, issued: string[]) => {
    const t = `${prefix}-${b64url(randomBytes(18))}`;
    issued.push(t);
    return t;
  };
  const idp: FakeIdp = {
    url: '',
    next: {
      scope: 'https://api.businesscentral.dynamics.com/Financials.ReadWrite.All offline_access',
      refreshToken: true,
      expiresIn: 3600,
    },
    refreshMode: 'ok',
    requests: { authorization_code: 0, refresh_token: 0 },
    authorizeQueries: [],
    issued: [],
    hold: undefined,
    onRefresh: undefined,
    grantRefreshToken(scope) {
      const t = token('rt', idp.issued);
      refreshTokens.set(t, scope);
      return t;
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
  const json = (res: import('node:http').ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' });
    res.end(JSON.stringify(body));
  };
  const server: Server = createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? '/', 'http://idp.invalid');
      if (req.method === 'GET' && url.pathname === '/tenant/authorize') {
        idp.authorizeQueries.push(url.searchParams);
        const q = url.searchParams;
        if (
          q.get('response_type') !== 'code' ||
          q.get('client_id') !== options.clientId ||
          q.get('code_challenge_method') !== 'S256' ||
          !q.get('code_challenge')
        ) {
          json(res, 400, { error: 'invalid_request' });
          return;
        }
        const code = b64url(randomBytes(16));
        codes.set(code, { challenge: q.get('code_challenge')!, redirectUri: q.get('redirect_uri')!, ...idp.next });
        const back = new URL(q.get('redirect_uri')!);
        back.searchParams.set('code', code);
        back.searchParams.set('state', q.get('state') ?? '');
        res.writeHead(302, { location: back.href });
        res.end();
        return;
      }
      if (req.method === 'POST' && url.pathname === '/tenant/token') {
        const form = await formOf(req);
        if (form.get('client_id') !== options.clientId || form.get('client_secret') !== options.clientSecret) {
          json(res, 401, {
            error: 'invalid_client',
            error_description: 'AADSTS7000215: Invalid client secret provided.',
          });
          return;
        }
        const grant = form.get('grant_type');
        if (grant === 'authorization_code') {
          idp.requests.authorization_code++;
          const entry = codes.get(form.get('code') ?? '');
          codes.delete(form.get('code') ?? '');
          const verifier = form.get('code_verifier') ?? '';
          if (
            !entry ||
            entry.redirectUri !== form.get('redirect_uri') ||
            b64url(createHash('sha256').update(verifier).digest()) !== entry.challenge
          ) {
            json(res, 400, { error: 'invalid_grant', error_description: 'AADSTS70008: code or verifier invalid.' });
            return;
          }
          const refresh = entry.refreshToken ? idp.grantRefreshToken(entry.scope) : undefined;
          json(res, 200, {
            token_type: 'Bearer',
            expires_in: entry.expiresIn,
            scope: entry.scope,
            access_token: token('at', idp.issued),
            ...(refresh ? { refresh_token: refresh } : {}),
          });
          return;
        }
        if (grant === 'refresh_token') {
          idp.requests.refresh_token++;
          idp.onRefresh?.();
          if (idp.hold) await idp.hold;
          if (idp.refreshMode === 'server_error') {
            res.writeHead(500, { 'content-type': 'text/html' });
            res.end('<html>upstream exploded</html>');
            return;
          }
          if (idp.refreshMode === 'invalid_client') {
            json(res, 401, {
              error: 'invalid_client',
              error_description: 'AADSTS7000222: The provided client secret keys are expired.',
            });
            return;
          }
          const old = form.get('refresh_token') ?? '';
          const scope = refreshTokens.get(old);
          if (idp.refreshMode === 'invalid_grant' || scope === undefined) {
            json(res, 400, {
              error: 'invalid_grant',
              error_description: 'AADSTS700082: The refresh token has expired due to inactivity.',
            });
            return;
          }
          // Rotation: the old refresh token dies, a new one is issued.
          refreshTokens.delete(old);
          json(res, 200, {
            token_type: 'Bearer',
            expires_in: 3600,
            scope,
            access_token: token('at', idp.issued),
            refresh_token: idp.grantRefreshToken(scope),
          });
          return;
        }
        json(res, 400, { error: 'unsupported_grant_type' });
        return;
      }
      json(res, 404, { error: 'not_found' });
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  (idp as { url: string }).url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/tenant`;
  return idp;
}
