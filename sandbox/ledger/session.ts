// The ledger sandbox's sessions: HS256 JWTs minted by /login (and /refresh), checked on every
// query, the 401 of a bad token, and the per-user daily call quota.
import { createHmac, randomUUID, timingSafeEqual } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { sendText } from '../http-kit.ts';
import { findLedgerUser, type LedgerUser } from './data.ts';
import type { LedgerState } from './state.ts';
import { REFRESH_TOKEN_LIFETIME_SECONDS } from './switches.ts';

const base64url = (data: Buffer | string): string => Buffer.from(data).toString('base64url');

export interface TokenClaims {
  iss: string;
  sub: string;
  uid: number;
  cid: number;
  iat: number;
  exp: number;
  jti: string;
}

export type TokenCheck = { ok: true; claims: TokenClaims; user: LedgerUser } | { ok: false; reason: string };

export function sign(s: LedgerState, input: string): string {
  return createHmac('sha256', s.secret).update(input).digest('base64url');
}

export function mintTokens(
  s: LedgerState,
  user: LedgerUser,
  companyId: number,
): { token: string; refreshToken: string; refreshTokenExpiry: string } {
  const now = Math.floor(Date.now() / 1000);
  const claims: TokenClaims = {
    iss: 'ledger-sandbox',
    sub: user.username,
    uid: user.userId,
    cid: companyId,
    iat: now,
    exp: now + s.switches.tokenLifetimeSeconds,
    jti: randomUUID(),
  };
  const head = `${base64url(JSON.stringify({ alg: 'HS256', typ: 'JWT' }))}.${base64url(JSON.stringify(claims))}`;
  const refreshToken = randomUUID();
  const expires = Date.now() + REFRESH_TOKEN_LIFETIME_SECONDS * 1000;
  s.refreshTokens.set(refreshToken, { user, companyId, expires });
  return { token: `${head}.${sign(s, head)}`, refreshToken, refreshTokenExpiry: new Date(expires).toISOString() };
}

export function checkToken(s: LedgerState, header: string | undefined): TokenCheck {
  const match = header === undefined ? null : /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (match === null) return { ok: false, reason: 'missing bearer token' };
  const parts = match[1]!.split('.');
  if (parts.length !== 3) return { ok: false, reason: 'invalid token' };
  const expected = Buffer.from(sign(s, `${parts[0]}.${parts[1]}`));
  const given = Buffer.from(parts[2]!);
  if (expected.length !== given.length || !timingSafeEqual(expected, given))
    return { ok: false, reason: 'invalid token' };
  let claims: TokenClaims;
  try {
    claims = JSON.parse(Buffer.from(parts[1]!, 'base64url').toString('utf8')) as TokenClaims;
  } catch {
    return { ok: false, reason: 'invalid token' };
  }
  if (typeof claims.exp !== 'number' || typeof claims.cid !== 'number' || typeof claims.sub !== 'string')
    return { ok: false, reason: 'invalid token' };
  if (Date.now() / 1000 >= claims.exp) return { ok: false, reason: 'token expired' };
  const user = findLedgerUser(claims.sub);
  if (user === undefined) return { ok: false, reason: 'invalid token' };
  return { ok: true, claims, user };
}

export function unauthorized(s: LedgerState, res: ServerResponse, reason: string): void {
  s.stats.unauthorized++;
  sendText(res, 401, `Unauthorized: ${reason}`, {
    'www-authenticate': `Bearer error="invalid_token", error_description="${reason}"`,
  });
}

/** Counts one call for `user`; false (and the reply sent) when the quota is used up. */
export function countCall(s: LedgerState, res: ServerResponse, user: LedgerUser): boolean {
  const today = new Date().toISOString().slice(0, 10);
  if (today !== s.quotaDay) {
    s.quotaDay = today;
    s.stats.callsByUser = {};
  }
  const used = s.stats.callsByUser[user.username] ?? 0;
  if (s.switches.quotaEnabled && used >= s.switches.quotaPerDay) {
    sendText(
      res,
      s.switches.quotaStatus,
      `The daily limit of ${s.switches.quotaPerDay} API calls for user ${user.username} has been reached.`,
    );
    return false;
  }
  s.stats.callsByUser[user.username] = used + 1;
  return true;
}
