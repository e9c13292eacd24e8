// Portal sign-in and sessions, reusable by every route that needs a signed-in user (the portal
// pages here, the OAuth authorization server's consent page later): `lookup(req)` answers the
// signed-in user of a request, or nothing.
//
// - Passwords: argon2id (@node-rs/argon2, its defaults: 19 MiB, 2 passes), PHC strings in the store.
//   An unknown address costs the same verification against a fixed hash, so timing does not tell
//   which addresses have users.
// - Sessions: a random 256-bit cookie value, stored only as its SHA-256; HttpOnly, SameSite=Lax
//   (a link opened from the assistant is a top-level navigation and keeps the session), Secure and
//   `__Host-` prefixed when the public URL is https. Sign-out ends one session, sign-out
//   everywhere every session of the user.
// - Sign-in is rate limited by failures per client address and per account, counted in the store
//   (so across replicas), checked before any password is verified.
// - CSRF: every form carries a token derived (HMAC by the vault's signing key) from the session, or
//   before sign-in from a random form cookie (SameSite=Strict); a POST without the matching token is
//   refused, and so is one whose Origin header names another site.
import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { hash, verify } from '@node-rs/argon2';
import type { Account, Repositories, User } from '../store/store.ts';
import type { Vault } from '../secrets/vault.ts';
import { sha256Hex } from '../secrets/hash.ts';

export interface SignedIn {
  readonly user: User;
  readonly account: Account;
  /** SHA-256 of the session cookie value. */
  readonly sessionHash: string;
  /** The CSRF token of this session's forms. */
  readonly csrf: string;
}

export interface SessionLimits {
  /** Absolute lifetime of a session. */
  readonly sessionSeconds: number;
  /** Failed sign-ins allowed per client address within the window. */
  readonly failuresPerAddress: number;
  /** Failed sign-ins allowed per account within the window. */
  readonly failuresPerAccount: number;
  readonly windowSeconds: number;
}

export interface SessionOptions {
  readonly store: Pick<Repositories, 'accounts' | 'users' | 'portal'>;
  readonly vault: Vault;
  readonly now: () => Date;
  /** Read at every cookie: https makes the cookies Secure and `__Host-` prefixed. */
  readonly publicBaseUrl: () => string;
  readonly limits: SessionLimits;
}

export type SignInOutcome =
  | { readonly ok: true; readonly user: User; readonly account: Account; readonly cookie: string }
  | { readonly ok: false; readonly reason: 'invalid' | 'rate_limited' };

/** The minimum length of a portal password. */
export const MIN_PASSWORD_LENGTH = 12;

export function hashPassword(password: string): Promise<string> {
  return hash(password);
}

/** A fixed hash verified against when the address has no user or no password (equal timing). */
let decoyHash: Promise<string> | undefined;

function cookieValue(header: string | undefined, name: string): string | undefined {
  for (const part of (header ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

function sameToken(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** The client address of a request (the socket's peer; a proxy in front is one address). */
export const clientAddress = (req: IncomingMessage): string => req.socket.remoteAddress ?? 'unknown';

export class PortalSessions {
  readonly #o: SessionOptions;

  constructor(options: SessionOptions) {
    this.#o = options;
  }

  get #secure(): boolean {
    return this.#o.publicBaseUrl().startsWith('https:');
  }

  get sessionCookieName(): string {
    return this.#secure ? '__Host-cg_session' : 'cg_session';
  }

  get #formCookieName(): string {
    return this.#secure ? '__Host-cg_form' : 'cg_form';
  }

  #cookie(name: string, value: string, maxAgeSeconds: number, sameSite: 'Lax' | 'Strict'): string {
    return (
      `${name}=${value}; Path=/; Max-Age=${maxAgeSeconds}; HttpOnly; SameSite=${sameSite}` +
      `${this.#secure ? '; Secure' : ''}`
    );
  }

  /** The signed-in user of a request, or undefined (no cookie, unknown or expired session). */
  async lookup(req: IncomingMessage): Promise<SignedIn | undefined> {
    const value = cookieValue(req.headers.cookie, this.sessionCookieName);
    if (!value || value.length > 128) return undefined;
    const sessionHash = sha256Hex(value);
    const found = await this.#o.store.portal.findSession(sessionHash, this.#o.now());
    if (!found) return undefined;
    return { user: found.user, account: found.account, sessionHash, csrf: this.#csrf(`s:${sessionHash}`) };
  }

  #csrf(binding: string): string {
    return this.#o.vault.sign(`csrf:${binding}`);
  }

  /**
   * The CSRF token of a form shown to someone not signed in, and the cookie to set when the
   * browser has no form cookie yet.
   */
  formToken(req: IncomingMessage): { csrf: string; setCookie?: string } {
    const existing = cookieValue(req.headers.cookie, this.#formCookieName);
    if (existing && /^[A-Za-z0-9_-]{20,64}$/.test(existing)) return { csrf: this.#csrf(`f:${existing}`) };
    const fresh = randomBytes(24).toString('base64url');
    return { csrf: this.#csrf(`f:${fresh}`), setCookie: this.#cookie(this.#formCookieName, fresh, 86_400, 'Strict') };
  }

  /**
   * Whether a POST carries the CSRF token of its session (or, signed out, of its form cookie), and
   * no Origin of another site.
   */
  checkCsrf(req: IncomingMessage, posted: string | null, signedIn: SignedIn | undefined): boolean {
    const origin = req.headers.origin;
    // "null" (an opaque origin) says nothing about the site; the token below still decides.
    if (origin !== undefined && origin !== 'null' && origin !== new URL(this.#o.publicBaseUrl()).origin) return false;
    if (!posted) return false;
    if (signedIn && sameToken(posted, signedIn.csrf)) return true;
    const form = cookieValue(req.headers.cookie, this.#formCookieName);
    return form !== undefined && sameToken(posted, this.#csrf(`f:${form}`));
  }

  /** Verifies an address and password under the rate limits; on success, a new session. */
  async signIn(req: IncomingMessage, email: string, password: string): Promise<SignInOutcome> {
    const { store, limits } = this.#o;
    const now = this.#o.now();
    const since = new Date(now.getTime() - limits.windowSeconds * 1000);
    const addressKey = `ip:${clientAddress(req)}`;
    const user = email.length <= 320 ? await store.users.findUserByEmail(email) : null;
    const accountKey = user ? `account:${user.accountId}` : undefined;
    const counts = await store.portal.countSignInFailures(accountKey ? [addressKey, accountKey] : [addressKey], since);
    if (
      (counts.get(addressKey) ?? 0) >= limits.failuresPerAddress ||
      (accountKey && (counts.get(accountKey) ?? 0) >= limits.failuresPerAccount)
    ) {
      return { ok: false, reason: 'rate_limited' };
    }
    const stored = user ? await store.portal.getPasswordHash(user.id) : null;
    decoyHash ??= hash(randomBytes(16).toString('hex'));
    let valid = false;
    try {
      valid = await verify(stored ?? (await decoyHash), password.slice(0, 1024));
    } catch {
      valid = false;
    }
    if (!user || !stored || !valid) {
      await store.portal.recordSignInFailure(accountKey ? [addressKey, accountKey] : [addressKey], now);
      return { ok: false, reason: 'invalid' };
    }
    const account = await store.accounts.getAccount(user.accountId);
    if (!account) return { ok: false, reason: 'invalid' };
    const cookie = await this.startSession(user, clientAddress(req));
    return { ok: true, user, account, cookie };
  }

  /** A new session for a user (sign-in, or a password just set): answers its Set-Cookie value. */
  async startSession(user: User, sourceIp: string): Promise<string> {
    const value = randomBytes(32).toString('base64url');
    const seconds = this.#o.limits.sessionSeconds;
    await this.#o.store.portal.createSession({
      idHash: sha256Hex(value),
      userId: user.id,
      expiresAt: new Date(this.#o.now().getTime() + seconds * 1000),
      sourceIp: sourceIp.slice(0, 64),
    });
    return this.#cookie(this.sessionCookieName, value, seconds, 'Lax');
  }

  /** Ends this session; answers the Set-Cookie value that clears it. */
  async signOut(signedIn: SignedIn | undefined): Promise<string> {
    if (signedIn) await this.#o.store.portal.deleteSession(signedIn.sessionHash);
    return this.#cookie(this.sessionCookieName, '', 0, 'Lax');
  }

  /** Ends every session of the user (every browser); answers how many and the clearing cookie. */
  async signOutEverywhere(user: User): Promise<{ ended: number; cookie: string }> {
    const ended = await this.#o.store.portal.deleteUserSessions(user.id);
    return { ended, cookie: this.#cookie(this.sessionCookieName, '', 0, 'Lax') };
  }
}
