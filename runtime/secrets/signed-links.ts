// Signed links to the portal pages. Every link the platform texts hand out (connect, purchase,
// team, terms) is a short-lived capability signed with a key derived from the vault secret; connect
// links are also single-use (recorded in the store, consumed atomically). The issuer makes them for
// the tools/call pipeline and the initialize instructions; the portal pages verify them.
import { randomBytes } from 'node:crypto';
import type { GatewayConfig } from '../config/config.ts';
import { deadline } from '../store/sql-client.ts';
import type { Identity } from '../store/state.ts';
import type { Repositories } from '../store/store.ts';
import type { Vault } from './vault.ts';

export type LinkPurpose = 'connect' | 'purchase' | 'team' | 'terms';

export interface LinkPayload {
  readonly purpose: LinkPurpose;
  readonly accountId: string;
  readonly userId: string;
  readonly connectorKey: string;
  readonly instanceId?: string;
  readonly jti?: string;
  /** Expiry, epoch seconds. */
  readonly exp: number;
}

export type LinkCheck =
  | { readonly ok: true; readonly payload: LinkPayload }
  | { readonly ok: false; readonly reason: 'invalid' | 'expired' | 'wrong_purpose' };

export function newJti(): string {
  return randomBytes(16).toString('base64url');
}

export function signLink(vault: Vault, payload: LinkPayload): string {
  const body = Buffer.from(JSON.stringify(payload), 'utf8').toString('base64url');
  return `${body}.${vault.sign(`link:${body}`)}`;
}

/** Makes the links a caller is handed for one endpoint instance (in tool results and initialize instructions). */
export interface LinkIssuer {
  issue(purpose: LinkPurpose, identity: Identity, connectorKey: string, instanceId: string): Promise<string>;
}

export interface LinkIssuerOptions {
  readonly store: Pick<Repositories, 'links'>;
  readonly vault: Vault;
  /** Read at every link: the base URL is the listening address until one is configured. */
  readonly config: Pick<GatewayConfig, 'publicBaseUrl'>;
  readonly now: () => Date;
  /** How long a connect link lives (the platform spec's `connectLinkValidSeconds`). */
  readonly connectLinkValidSeconds: number;
  /** How long purchase, team and terms links live (the platform spec's `portalLinkValidSeconds`). */
  readonly portalLinkValidSeconds: number;
  /**
   * The store deadline (`storeTimeoutMs`): storing a connect link never takes longer, even where
   * the driver's own deadlines add up (waiting for a connection, then for the query).
   */
  readonly storeTimeoutMs: number;
}

export function createLinkIssuer({
  store,
  vault,
  config,
  now,
  connectLinkValidSeconds,
  portalLinkValidSeconds,
  storeTimeoutMs,
}: LinkIssuerOptions): LinkIssuer {
  const ttlSeconds: Readonly<Record<LinkPurpose, number>> = {
    connect: connectLinkValidSeconds,
    purchase: portalLinkValidSeconds,
    team: portalLinkValidSeconds,
    terms: portalLinkValidSeconds,
  };
  return {
    async issue(purpose, identity, connectorKey, instanceId) {
      const exp = Math.floor(now().getTime() / 1000) + ttlSeconds[purpose];
      const base = { purpose, accountId: identity.account.id, userId: identity.user.id, connectorKey, exp };
      if (purpose !== 'connect') return `${config.publicBaseUrl}/portal/${purpose}/${signLink(vault, base)}`;
      const jti = newJti();
      await deadline(
        store.links.createConnectLink({
          jti,
          accountId: identity.account.id,
          userId: identity.user.id,
          instanceId,
          expiresAt: new Date(exp * 1000),
        }),
        storeTimeoutMs,
      );
      return `${config.publicBaseUrl}/portal/connect/${signLink(vault, { ...base, instanceId, jti })}`;
    },
  };
}

/**
 * How long an expired connect link is kept: a day, so that opening it still says "expired" or
 * "used" rather than "unknown"; after that it is deleted (every not-connected refusal makes one).
 */
export const EXPIRED_LINK_RETENTION_MS = 24 * 3600_000;
/** How often each process purges expired connect links (the DELETE is idempotent across replicas). */
export const LINK_PURGE_INTERVAL_MS = 3600_000;

/** Deletes the connect links that expired more than a day before `now`; answers how many. */
export function purgeExpiredLinks(store: Pick<Repositories, 'links'>, now: Date): Promise<number> {
  return store.links.purgeConnectLinks(new Date(now.getTime() - EXPIRED_LINK_RETENTION_MS));
}

export function verifyLink(vault: Vault, token: string, purpose: LinkPurpose, now: Date): LinkCheck {
  const dot = token.indexOf('.');
  if (dot <= 0 || token.length > 4096) return { ok: false, reason: 'invalid' };
  const body = token.slice(0, dot);
  const signature = token.slice(dot + 1);
  const expected = vault.sign(`link:${body}`);
  // Constant-time comparison of equal-length strings.
  if (signature.length !== expected.length || !timingSafeEqualStr(signature, expected))
    return { ok: false, reason: 'invalid' };
  let payload: LinkPayload;
  try {
    payload = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as LinkPayload;
  } catch {
    return { ok: false, reason: 'invalid' };
  }
  if (payload.purpose !== purpose) return { ok: false, reason: 'wrong_purpose' };
  if (typeof payload.exp !== 'number' || payload.exp * 1000 <= now.getTime()) return { ok: false, reason: 'expired' };
  return { ok: true, payload };
}

function timingSafeEqualStr(a: string, b: string): boolean {
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}
