// The key check: each credential key version leaves a check value in the database the first time
// it is used; a process whose key of that version differs refuses to start (a wrong key, or
// replicas that each made their own key file) instead of starting "healthy" with every stored
// credential unreadable. A database from before key checks is probed with a few stored
// credentials of each version: refused when some are well-formed and none of them opens.
import { ConfigError } from '../config/config.ts';
import type { PlatformStore } from '../store/store.ts';
import type { Vault } from './vault.ts';

/** Stored credentials tried per key version on a database from before key checks. */
const PROBES = 5;

/** Where the keys came from: GATEWAY_SECRET_KEYS, or the path of the embedded key file. */
export type KeySource = { readonly kind: 'env' } | { readonly kind: 'file'; readonly path: string };

function mismatch(version: number, source: KeySource, shared: boolean): ConfigError {
  if (source.kind === 'env') {
    return new ConfigError(
      `GATEWAY_SECRET_KEYS key version ${version} is not the key this database's credentials were sealed with ` +
        '(its key check differs): a wrong key? Every process using this database needs the same GATEWAY_SECRET_KEYS',
    );
  }
  return new ConfigError(
    shared
      ? `the key file ${source.path} holds a key version ${version} other than the one this shared database ` +
          '(DATABASE_URL) was first used with: each replica made its own key file. Set GATEWAY_SECRET_KEYS to the ' +
          `same "<version>:<base64 key>" list on every replica (the first replica's key file holds the keys in use)`
      : `the key file ${source.path} holds a key version ${version} other than the one this database was first used ` +
          'with: restore the key file from its backup, or set GATEWAY_SECRET_KEYS to the keys in use',
  );
}

/**
 * Compares every configured key version with its recorded check value, recording the ones not
 * recorded yet. Throws a ConfigError naming the setting and the key version on a mismatch.
 */
export async function checkKeys(
  vault: Vault,
  store: Pick<PlatformStore, 'kind' | 'connections'>,
  source: KeySource,
): Promise<void> {
  const shared = store.kind === 'postgres';
  const recorded = await store.connections.keyChecks();
  // Every version first, so a wrong key records nothing (not even a check of a new version beside it).
  const unrecorded: number[] = [];
  for (const version of vault.versions()) {
    const stored = recorded.get(version);
    if (stored === undefined) {
      const outcomes = (await store.connections.connectionsSealedWith(version, PROBES)).map((c) =>
        vault.tryOpen(c.ciphertext, c.accountId, c.instanceId),
      );
      if (outcomes.includes('failed') && !outcomes.includes('opened')) throw mismatch(version, source, shared);
      unrecorded.push(version);
    } else if (stored !== vault.keyCheck(version)) {
      throw mismatch(version, source, shared);
    }
  }
  // Another process may record the same version meanwhile: the first record wins, both compare with it.
  for (const version of unrecorded) {
    if ((await store.connections.recordKeyCheck(version, vault.keyCheck(version))) !== vault.keyCheck(version))
      throw mismatch(version, source, shared);
  }
}
