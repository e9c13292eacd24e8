// Signed portal links. Every link the platform texts hand out (connect, purchase, team, terms) is a
// short-lived capability signed with a key derived from the vault secret; connect links are also
// single-use (recorded in the store, consumed atomically).
import { randomBytes } from 'node:crypto';
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

export type LinkCheck = { readonly ok: true; readonly payload: LinkPayload } | { readonly ok: false; readonly reason: 'invalid' | 'expired' | 'wrong_purpose' };

export function newJti(): string {
  return randomBytes(16).toString('base64url');
}

export function signLink(vault: Vault, payload: LinkPayload): string {
  const body = Buffer.from(JSON.stringify(payload), 'utf8').toString('base64url');
  return `${body}.${vault.sign(`link:${body}`)}`;
}

export function verifyLink(vault: Vault, token: string, purpose: LinkPurpose, now: Date): LinkCheck {
  const dot = token.indexOf('.');
  if (dot <= 0 || token.length > 4096) return { ok: false, reason: 'invalid' };
  const body = token.slice(0, dot);
  const signature = token.slice(dot + 1);
  const expected = vault.sign(`link:${body}`);
  // Constant-time comparison of equal-length strings.
  if (signature.length !== expected.length || !timingSafeEqualStr(signature, expected)) return { ok: false, reason: 'invalid' };
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
