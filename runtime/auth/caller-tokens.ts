// Caller tokens (DECISIONS §1): issued per user, shown once, stored only as a SHA-256 hash.
import { randomBytes } from 'node:crypto';
import { sha256Hex } from '../secrets/hash.ts';
import type { Repositories, TokenRecord, TokenScope } from '../store/store.ts';

export function tokenHash(token: string): string {
  return sha256Hex(token);
}

export const TOKEN_PREFIX = 'cgw_';

export function newToken(): string {
  return `${TOKEN_PREFIX}${randomBytes(24).toString('base64url')}`;
}

/** Creates a token for a user; the returned `token` is the only time it exists in clear. */
export async function issueToken(
  store: Pick<Repositories, 'tokens'>,
  userId: string,
  label: string,
  token = newToken(),
  scope: TokenScope | null = null,
): Promise<{ token: string; record: TokenRecord }> {
  const record = await store.tokens.createToken({ userId, label, tokenHash: tokenHash(token), scope });
  return { token, record };
}
