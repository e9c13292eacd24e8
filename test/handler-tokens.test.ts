// `ctx.tokens` (runtime/secrets/vault.ts handlerTokens): the handlers' opaque tokens (ERP cursors,
// DECISIONS §16) open only for the account, instance and binding they were sealed for, never as a
// credential (nor a credential as a token), and survive a key rotation while the old key is configured.
import { describe, expect, it } from 'vitest';
import { handlerTokens, newSecretKey, Vault } from '../runtime/secrets/vault.ts';

describe('handler tokens', () => {
  const key1 = newSecretKey();
  const vault = new Vault({ 1: key1 });
  const tokens = handlerTokens(vault, 'acc_1', 'erp');

  it('open what they sealed, for the same binding only', () => {
    const token = tokens.seal('{"link":"x"}', 'b1');
    expect(tokens.open(token, 'b1')).toBe('{"link":"x"}');
    expect(tokens.open(token, 'b2')).toBeUndefined();
    expect(handlerTokens(vault, 'acc_2', 'erp').open(token, 'b1')).toBeUndefined();
    expect(handlerTokens(vault, 'acc_1', 'erp-2').open(token, 'b1')).toBeUndefined();
    expect(new Vault({ 1: newSecretKey() }).openToken(token, 'acc_1\u0000erp\u0000b1')).toBeUndefined();
  });

  it('refuse altered, cut or foreign tokens', () => {
    const token = tokens.seal('payload', 'b');
    const parts = token.split('.');
    const flip = (s: string) => (s[0] === 'A' ? 'B' : 'A') + s.slice(1);
    for (const i of [2, 3, 4])
      expect(tokens.open(parts.map((p, j) => (j === i ? flip(p) : p)).join('.'), 'b')).toBeUndefined();
    expect(tokens.open(parts.slice(0, 4).join('.'), 'b')).toBeUndefined();
    expect(tokens.open([...parts.slice(0, 4), parts[4]!.slice(0, 8)].join('.'), 'b')).toBeUndefined();
    expect(tokens.open(['t1', '7', ...parts.slice(2)].join('.'), 'b')).toBeUndefined();
    expect(tokens.open('', 'b')).toBeUndefined();
    expect(tokens.open('not.a.token.at.all', 'b')).toBeUndefined();
  });

  it('are not credentials, and credentials are not tokens', () => {
    const sealed = vault.seal('secret', 'acc_1', 'erp');
    expect(vault.openToken(sealed.ciphertext, 'acc_1\u0000erp\u0000')).toBeUndefined();
    const token = vault.sealToken('payload', 'acc_1');
    expect(() => vault.open(token, 'acc_1', 'erp')).toThrow();
  });

  it('open after a key rotation while the old key is configured, not after it is retired', () => {
    const token = tokens.seal('payload', 'b');
    const rotated = new Vault({ 1: key1, 2: newSecretKey() });
    expect(handlerTokens(rotated, 'acc_1', 'erp').open(token, 'b')).toBe('payload');
    expect(handlerTokens(rotated, 'acc_1', 'erp').seal('x', 'b').startsWith('t1.2.')).toBe(true);
    expect(handlerTokens(new Vault({ 2: newSecretKey() }), 'acc_1', 'erp').open(token, 'b')).toBeUndefined();
  });
});
