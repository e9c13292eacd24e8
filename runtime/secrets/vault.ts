// Credentials at rest: AES-256-GCM, bound to the account and endpoint instance they belong to
// (additional authenticated data), with a key version so keys can rotate. A ciphertext copied to
// another account or instance, or altered in any byte, fails to decrypt.
import { createCipheriv, createDecipheriv, createHmac, randomBytes, hkdfSync } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { SealedTokens } from '../handler-api/tool-context.ts';

export class VaultError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'VaultError';
  }
}

export interface Sealed {
  readonly ciphertext: string;
  readonly keyVersion: number;
}

const FORMAT = 'v1';
/** The GCM tag length `seal` writes and `open` requires. */
const TAG_BYTES = 16;

function aad(accountId: string, instanceId: string, version: number): Buffer {
  return Buffer.from(`connector-gateway/credential\u0000${accountId}\u0000${instanceId}\u0000${version}`, 'utf8');
}

const TOKEN_FORMAT = 't1';

function tokenAad(binding: string, version: number): Buffer {
  return Buffer.from(`connector-gateway/handler-token\u0000${version}\u0000${binding}`, 'utf8');
}

export class Vault {
  readonly #keys: Map<number, Buffer>;
  readonly activeVersion: number;
  readonly #signingKey: Buffer;
  /** Keys of the handlers' opaque tokens by key version, derived from the secrets (never the secrets themselves). */
  readonly #tokenKeys = new Map<number, Buffer>();

  constructor(keys: Readonly<Record<number, string>>) {
    this.#keys = new Map();
    for (const [version, encoded] of Object.entries(keys)) {
      const key = Buffer.from(encoded, 'base64');
      if (key.length !== 32)
        throw new VaultError(`secret key version ${version} must be 32 bytes of base64 (got ${key.length} bytes)`);
      this.#keys.set(Number(version), key);
    }
    if (this.#keys.size === 0) throw new VaultError('no secret key configured');
    this.activeVersion = Math.max(...this.#keys.keys());
    // Links and portal tokens are signed with a key derived from the active secret, never the secret itself.
    this.#signingKey = Buffer.from(
      hkdfSync('sha256', this.#keys.get(this.activeVersion)!, Buffer.alloc(0), 'connector-gateway/signing', 32),
    );
  }

  versions(): number[] {
    return [...this.#keys.keys()].sort((a, b) => a - b);
  }

  seal(plaintext: string, accountId: string, instanceId: string): Sealed {
    const version = this.activeVersion;
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.#keys.get(version)!, iv, { authTagLength: TAG_BYTES });
    cipher.setAAD(aad(accountId, instanceId, version));
    const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    const tag = cipher.getAuthTag();
    return {
      ciphertext: [
        FORMAT,
        String(version),
        iv.toString('base64url'),
        body.toString('base64url'),
        tag.toString('base64url'),
      ].join('.'),
      keyVersion: version,
    };
  }

  open(ciphertext: string, accountId: string, instanceId: string): string {
    const parts = ciphertext.split('.');
    if (parts.length !== 5 || parts[0] !== FORMAT) throw new VaultError('credential ciphertext has an unknown format');
    const version = Number(parts[1]);
    const key = this.#keys.get(version);
    if (!key) throw new VaultError(`credential was sealed with key version ${version}, which is not configured`);
    // GCM accepts tags cut down to 4 bytes unless told the length: a truncated tag is forged with
    // far less work, so only the full 16-byte tag this vault writes is accepted.
    const tag = Buffer.from(parts[4]!, 'base64url');
    if (tag.length !== TAG_BYTES)
      throw new VaultError(
        `credential authentication tag must be ${TAG_BYTES} bytes (got ${tag.length}); the ciphertext is damaged ` +
          'or forged',
      );
    try {
      const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(parts[2]!, 'base64url'), {
        authTagLength: TAG_BYTES,
      });
      decipher.setAAD(aad(accountId, instanceId, version));
      decipher.setAuthTag(tag);
      return Buffer.concat([decipher.update(Buffer.from(parts[3]!, 'base64url')), decipher.final()]).toString('utf8');
    } catch {
      throw new VaultError('credential failed authentication (tampered, or bound to another account or instance)');
    }
  }

  /**
   * The check value of one key version: a MAC of a fixed label under a key derived from it (never
   * the key, nor anything that helps to guess it). Recorded in the database on first use.
   */
  keyCheck(version: number): string {
    const key = this.#keys.get(version);
    if (!key) throw new VaultError(`key version ${version} is not configured`);
    const derived = Buffer.from(hkdfSync('sha256', key, Buffer.alloc(0), 'connector-gateway/key-check', 32));
    return (
      'v1.' +
      `${createHmac('sha256', derived).update(`connector-gateway/key-check\u0000${version}`).digest('base64url')}`
    );
  }

  /**
   * Whether this vault opens the ciphertext (the key check of a database from before key checks):
   * `malformed` when it is no ciphertext of this format and version at all (no evidence either way).
   */
  tryOpen(ciphertext: string, accountId: string, instanceId: string): 'opened' | 'failed' | 'malformed' {
    const parts = ciphertext.split('.');
    if (parts.length !== 5 || parts[0] !== FORMAT || !this.#keys.has(Number(parts[1]))) return 'malformed';
    // A cut tag says nothing about the key (it is refused whichever key is right).
    if (Buffer.from(parts[4]!, 'base64url').length !== TAG_BYTES) return 'malformed';
    try {
      this.open(ciphertext, accountId, instanceId);
      return 'opened';
    } catch {
      return 'failed';
    }
  }

  /**
   * A handler's opaque token (a continuation cursor): AES-256-GCM under a key derived from the
   * active secret for this purpose only, so a token never opens as a credential nor the reverse.
   * `binding` (account, instance and the handler's own binding) is authenticated, not stored.
   */
  sealToken(plaintext: string, binding: string): string {
    const version = this.activeVersion;
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.#tokenKey(version)!, iv, { authTagLength: TAG_BYTES });
    cipher.setAAD(tokenAad(binding, version));
    const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return [
      TOKEN_FORMAT,
      String(version),
      iv.toString('base64url'),
      body.toString('base64url'),
      cipher.getAuthTag().toString('base64url'),
    ].join('.');
  }

  /** The plaintext of a token `sealToken` made with the same binding; undefined for anything else. */
  openToken(token: string, binding: string): string | undefined {
    const parts = token.split('.');
    if (parts.length !== 5 || parts[0] !== TOKEN_FORMAT || !/^\d{1,9}$/.test(parts[1]!)) return undefined;
    const version = Number(parts[1]);
    const key = this.#tokenKey(version);
    const tag = Buffer.from(parts[4]!, 'base64url');
    const iv = Buffer.from(parts[2]!, 'base64url');
    if (!key || tag.length !== TAG_BYTES || iv.length !== 12) return undefined;
    try {
      const decipher = createDecipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
      decipher.setAAD(tokenAad(binding, version));
      decipher.setAuthTag(tag);
      return Buffer.concat([decipher.update(Buffer.from(parts[3]!, 'base64url')), decipher.final()]).toString('utf8');
    } catch {
      return undefined;
    }
  }

  #tokenKey(version: number): Buffer | undefined {
    let key = this.#tokenKeys.get(version);
    const secret = this.#keys.get(version);
    if (!key && secret) {
      key = Buffer.from(hkdfSync('sha256', secret, Buffer.alloc(0), 'connector-gateway/handler-token', 32));
      this.#tokenKeys.set(version, key);
    }
    return key;
  }

  sign(payload: string): string {
    return createHmac('sha256', this.#signingKey).update(payload).digest('base64url');
  }
}

/** A handler's opaque tokens bound to one account and endpoint instance (`ctx.tokens`). */
export function handlerTokens(vault: Vault, accountId: string, instanceId: string): SealedTokens {
  const bound = (binding: string) => `${accountId}\u0000${instanceId}\u0000${binding}`;
  return {
    seal: (payload, binding) => vault.sealToken(payload, bound(binding)),
    open: (token, binding) => vault.openToken(token, bound(binding)),
  };
}

export function newSecretKey(): string {
  return randomBytes(32).toString('base64');
}

/**
 * The embedded default: a key file in the data directory, created on first start with mode 0600.
 * Returns the keys and whether the file was just created (the caller warns).
 */
export function loadOrCreateKeyFile(path: string): { keys: Record<number, string>; created: boolean } {
  if (existsSync(path)) {
    const keys: Record<number, string> = {};
    for (const line of readFileSync(path, 'utf8')
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l && !l.startsWith('#'))) {
      const match = /^(\d+):(.+)$/.exec(line);
      if (!match) throw new VaultError(`key file ${path} has a malformed line (expected "<version>:<base64 key>")`);
      keys[Number(match[1])] = match[2]!;
    }
    return { keys, created: false };
  }
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  const keys = { 1: newSecretKey() };
  writeFileSync(
    path,
    `# Credential encryption keys of this gateway ("<version>:<base64 32 bytes>"). Keep secret; back up.\n1:` +
      `${keys[1]}` +
      `\n`,
    { mode: 0o600 },
  );
  chmodSync(path, 0o600);
  return { keys, created: true };
}
