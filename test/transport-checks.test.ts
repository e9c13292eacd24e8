// The HTTP checks of an MCP endpoint (runtime/transport/checks.ts), rule by rule, without a server:
// each is a function of what it judges and returns a verdict. The texts are asserted in full: they
// come from specs/platform.yaml and must not change by accident.
import { describe, expect, it } from 'vitest';
import type { Identity } from '../runtime/store/state.ts';
import { tokenHash } from '../runtime/auth/caller-tokens.ts';
import {
  bearerToken,
  checkBodySize,
  checkCaller,
  checkHttpMethod,
  checkOrigin,
  checkProtocolVersion,
  checkRate,
  type IdentityLookup,
  parseBody,
  type Verdict,
} from '../runtime/transport/checks.ts';

/** The refusal of a verdict (fails the test when it passed). */
function refused(verdict: Verdict): Omit<Extract<Verdict, { ok: false }>, 'ok'> {
  if (verdict.ok) throw new Error('expected a refusal, the check passed');
  const { ok: _ok, ...rest } = verdict;
  return rest;
}

describe('checkHttpMethod', () => {
  it('passes POST', () => {
    expect(checkHttpMethod('POST')).toEqual({ ok: true });
  });

  it('refuses every other method with 405, Allow: POST and -32600', () => {
    for (const method of ['GET', 'PUT', 'DELETE', 'OPTIONS', 'post', undefined]) {
      expect(refused(checkHttpMethod(method)), String(method)).toEqual({
        status: 405,
        code: -32600,
        message: 'Method not allowed: this endpoint takes POST (stateless, JSON responses).',
        headers: { allow: 'POST' },
      });
    }
  });
});

describe('checkOrigin', () => {
  const allowed = new Set(['http://127.0.0.1:8787', 'https://app.example.test']);

  it('passes a request without Origin (not a browser)', () => {
    expect(checkOrigin(undefined, allowed).ok).toBe(true);
    expect(checkOrigin('', allowed).ok).toBe(true);
  });

  it('passes an allowed origin, compared exactly', () => {
    expect(checkOrigin('https://app.example.test', allowed).ok).toBe(true);
    expect(checkOrigin('http://127.0.0.1:8787', allowed).ok).toBe(true);
  });

  it('refuses any other origin with 403 and -32600, including near misses', () => {
    for (const origin of [
      'https://evil.example.test',
      'https://app.example.test:443',
      'https://APP.example.test',
      'http://app.example.test',
      'null',
    ]) {
      expect(refused(checkOrigin(origin, allowed)), origin).toEqual({
        status: 403,
        code: -32600,
        message: 'Origin not allowed.',
      });
    }
  });
});

describe('bearerToken (Authorization header parsing)', () => {
  const token = 'cgw_0123456789abcdef';

  it('takes the token after "Bearer ", trimmed', () => {
    expect(bearerToken(`Bearer ${token}`)).toBe(token);
    expect(bearerToken(`Bearer   ${token}  `)).toBe(token);
  });

  it('matches the scheme name case-insensitively (RFC 9110 §11.1), with spaces or tabs after it', () => {
    for (const scheme of ['bearer', 'BEARER', 'BeArEr']) expect(bearerToken(`${scheme} ${token}`), scheme).toBe(token);
    expect(bearerToken(`Bearer\t${token}`)).toBe(token);
  });

  it('finds none without the Bearer scheme', () => {
    expect(bearerToken(undefined)).toBeUndefined();
    expect(bearerToken('')).toBeUndefined();
    expect(bearerToken(token)).toBeUndefined();
    expect(bearerToken(`Basic ${token}`)).toBeUndefined();
    expect(bearerToken(`Bearer${token}`)).toBeUndefined();
    expect(bearerToken(`Bearers ${token}`)).toBeUndefined();
  });

  it('finds none shorter than 16 or longer than 512 characters', () => {
    expect(bearerToken(`Bearer ${'x'.repeat(15)}`)).toBeUndefined();
    expect(bearerToken(`Bearer ${'x'.repeat(16)}`)).toBe('x'.repeat(16));
    expect(bearerToken(`Bearer ${'x'.repeat(512)}`)).toBe('x'.repeat(512));
    expect(bearerToken(`Bearer ${'x'.repeat(513)}`)).toBeUndefined();
  });
});

describe('checkCaller (authentication)', () => {
  const token = 'cgw_caller-check-token-1';
  const identity = { user: { id: 'usr_1' }, account: { id: 'acc_1' }, tokenId: 'tok_1' } as unknown as Identity;
  const known = new Map([[tokenHash(token), identity]]);
  const lookups: string[] = [];
  /** A lookup whose memory holds `inMemory` and whose store read (`identify`) finds `known`. */
  const lookupOf = (
    find: (hash: string) => Identity | undefined | Promise<Identity | undefined>,
    inMemory = new Map<string, Identity>(),
  ): IdentityLookup => ({
    known: (hash) => inMemory.get(hash),
    identify: find,
  });
  const identify = lookupOf((hash: string) => {
    lookups.push(hash);
    return known.get(hash);
  });
  const UNAUTHORIZED = {
    status: 401,
    code: -32001,
    message: 'Unauthorized: send Authorization: Bearer <token> with a token issued by this gateway.',
    headers: { 'www-authenticate': 'Bearer realm="connector-gateway"' },
  };

  it('passes a known token with its identity, looked up by the SHA-256 hash (never the token)', async () => {
    lookups.length = 0;
    expect(await checkCaller(`Bearer ${token}`, identify)).toEqual({ ok: true, identity });
    expect(lookups).toEqual([tokenHash(token)]);
  });

  it('answers 503 with retry-after, not a 500, when the lookup fails (the database is away)', async () => {
    const failing = async (): Promise<Identity | undefined> => {
      throw new Error('Connection terminated unexpectedly');
    };
    expect(await checkCaller(`Bearer ${token}`, lookupOf(failing))).toEqual({
      ok: false,
      status: 503,
      code: -32603,
      message:
        'The gateway cannot check this token right now: its platform database does not answer. Try again shortly.',
      headers: { 'retry-after': '5' },
    });
  });

  it('awaits an asynchronous lookup (a token made on another replica)', async () => {
    expect(
      await checkCaller(
        `Bearer ${token}`,
        lookupOf(async (hash) => known.get(hash)),
      ),
    ).toEqual({ ok: true, identity });
  });

  it('refuses an unknown or revoked token with 401, -32001 and WWW-Authenticate', async () => {
    expect(refused(await checkCaller('Bearer cgw_not-a-token-of-ours', identify))).toEqual(UNAUTHORIZED);
  });

  it('refuses a missing or malformed header without any lookup', async () => {
    lookups.length = 0;
    for (const header of [undefined, '', token, `Basic ${token}`, 'Bearer short']) {
      expect(refused(await checkCaller(header, identify)), String(header)).toEqual(UNAUTHORIZED);
    }
    expect(lookups).toEqual([]);
  });

  describe('failed authentications of one client address', () => {
    /** A bucket of `n` failures that never refills. */
    const bucket = (n: number) => {
      let left = n;
      return { exhausted: () => left < 1, failed: () => void left--, left: () => left };
    };
    const LIMITED = {
      status: 429,
      code: -32029,
      message:
        'Too many failed authentication attempts from this address. Retry ' +
        'after 1 second with a token issued by this gateway.',
      data: { retryAfterSeconds: 1 },
      headers: { 'retry-after': '1' },
    };

    it('counts every refusal; once the bucket is spent, unknown tokens get 429 without any lookup', async () => {
      const failures = bucket(3);
      lookups.length = 0;
      expect(refused(await checkCaller('Bearer cgw_unknown-token-0001', identify, failures))).toEqual(UNAUTHORIZED);
      expect(refused(await checkCaller('Bearer short', identify, failures))).toEqual(UNAUTHORIZED);
      expect(refused(await checkCaller('Bearer cgw_unknown-token-0002', identify, failures))).toEqual(UNAUTHORIZED);
      expect(failures.left()).toBe(0);
      expect(lookups).toHaveLength(2);
      for (let i = 0; i < 50; i++)
        expect(
          refused(await checkCaller(`Bearer cgw_unknown-token-1${String(i).padStart(3, '0')}`, identify, failures)),
        ).toEqual(LIMITED);
      expect(lookups).toHaveLength(2);
    });

    it('still passes a token held in memory from a spent address (a proxy shared with an attacker)', async () => {
      const failures = bucket(0);
      expect(
        await checkCaller(
          `Bearer ${token}`,
          lookupOf(() => undefined, new Map([[tokenHash(token), identity]])),
          failures,
        ),
      ).toEqual({ ok: true, identity });
    });

    it('takes nothing from the bucket for a token found in the store', async () => {
      const failures = bucket(1);
      expect(await checkCaller(`Bearer ${token}`, identify, failures)).toEqual({ ok: true, identity });
      expect(failures.left()).toBe(1);
    });
  });
});

describe('checkBodySize', () => {
  it('passes a body up to the limit', () => {
    expect(checkBodySize(0, 1024).ok).toBe(true);
    expect(checkBodySize(1024, 1024).ok).toBe(true);
  });

  it('refuses a larger body with 413, -32600, the limit in the text, and Connection: close', () => {
    expect(refused(checkBodySize(1025, 1024))).toEqual({
      status: 413,
      code: -32600,
      message: 'Request body larger than 1024 bytes.',
      headers: { connection: 'close' },
    });
    expect(refused(checkBodySize(5_000_000, 1_048_576)).message).toBe('Request body larger than 1048576 bytes.');
  });
});

describe('checkRate (the rate limiter decision)', () => {
  it('passes an allowed request, and a fail-open one', () => {
    expect(checkRate({ allowed: true }).ok).toBe(true);
    expect(checkRate({ allowed: true, failOpen: true }).ok).toBe(true);
  });

  it('refuses a limited request with 429, -32029, retryAfterSeconds and Retry-After: 1', () => {
    expect(refused(checkRate({ allowed: false }))).toEqual({
      status: 429,
      code: -32029,
      message: 'Rate limit exceeded: too many requests for this account and connector. Retry after 1 second.',
      data: { retryAfterSeconds: 1 },
      headers: { 'retry-after': '1' },
    });
  });
});

describe('parseBody', () => {
  it('passes JSON with the parsed value, whatever its shape (the envelope is judged later)', () => {
    expect(parseBody(Buffer.from('{"jsonrpc":"2.0","id":1,"method":"ping"}'))).toEqual({
      ok: true,
      body: { jsonrpc: '2.0', id: 1, method: 'ping' },
    });
    expect(parseBody(Buffer.from('[]'))).toEqual({ ok: true, body: [] });
    expect(parseBody(Buffer.from('null'))).toEqual({ ok: true, body: null });
  });

  it('refuses what is not JSON with 400 and -32700', () => {
    for (const raw of ['{not json', '', '{"a":1}}', '\u00ff']) {
      expect(refused(parseBody(Buffer.from(raw))), raw).toEqual({
        status: 400,
        code: -32700,
        message: 'Parse error: the body is not valid JSON.',
      });
    }
  });
});

describe('checkProtocolVersion', () => {
  it('passes a request without the header, and every served version', () => {
    expect(checkProtocolVersion(undefined).ok).toBe(true);
    for (const v of ['2025-11-25', '2025-06-18', '2025-03-26']) expect(checkProtocolVersion(v).ok, v).toBe(true);
  });

  it('refuses another version with 400, -32600, naming it and the served ones', () => {
    expect(refused(checkProtocolVersion('2024-11-05'))).toEqual({
      status: 400,
      code: -32600,
      message: 'Unsupported MCP-Protocol-Version 2024-11-05; served: 2025-11-25, 2025-06-18, 2025-03-26.',
    });
    expect(refused(checkProtocolVersion('')).message).toBe(
      'Unsupported MCP-Protocol-Version ; served: 2025-11-25, 2025-06-18, 2025-03-26.',
    );
  });
});
