// The CORS rules of the MCP endpoints (runtime/transport/cors.ts), rule by rule, without a server.
import { describe, expect, it } from 'vitest';
import { CORS_ALLOW_HEADERS, CORS_ALLOW_METHODS, CORS_EXPOSE_HEADERS, corsPolicy } from '../runtime/transport/cors.ts';

const APP = 'https://inspector.example.test';
const PUBLIC = 'http://127.0.0.1:8787';
const cors = corsPolicy(new Set([PUBLIC, APP]));

describe('corsPolicy', () => {
  it('adds nothing to a request without Origin (not a browser), whatever its method', () => {
    for (const method of ['POST', 'GET', 'OPTIONS', 'DELETE', undefined]) {
      expect(cors(method, undefined, undefined), String(method)).toEqual({ kind: 'none' });
      expect(cors(method, '', 'POST'), String(method)).toEqual({ kind: 'none' });
    }
  });

  it("answers an allowed origin's preflight with its origin, MCP clients' methods and headers, max age, Vary", () => {
    for (const origin of [APP, PUBLIC]) {
      expect(cors('OPTIONS', origin, 'POST')).toEqual({
        kind: 'preflight',
        headers: {
          'access-control-allow-origin': origin,
          'access-control-allow-methods': 'POST, GET, DELETE',
          'access-control-allow-headers': CORS_ALLOW_HEADERS,
          'access-control-max-age': '7200',
          vary: 'Origin',
        },
      });
    }
  });

  it('allows every request header the SDK 1.x and 2.x clients send, and trace context', () => {
    const allowed = CORS_ALLOW_HEADERS.split(', ');
    for (const name of [
      'authorization',
      'content-type',
      'accept',
      'mcp-protocol-version',
      'mcp-session-id',
      'mcp-method',
      'mcp-name',
      'last-event-id',
      'traceparent',
      'tracestate',
    ]) {
      expect(allowed, name).toContain(name);
    }
    // Lowercase, as browsers send Access-Control-Request-Headers and compare them (case-insensitively).
    expect(CORS_ALLOW_HEADERS).toBe(CORS_ALLOW_HEADERS.toLowerCase());
    expect(CORS_ALLOW_METHODS.split(', ')).toEqual(['POST', 'GET', 'DELETE']);
  });

  it('treats an OPTIONS without Access-Control-Request-Method as an ordinary request (not a preflight)', () => {
    expect(cors('OPTIONS', APP, undefined)).toMatchObject({ kind: 'allowed' });
  });

  it("gives an allowed origin's other requests its origin, the exposed response headers and Vary", () => {
    for (const method of ['POST', 'GET', 'DELETE', 'PUT']) {
      expect(cors(method, APP, undefined), method).toEqual({
        kind: 'allowed',
        headers: {
          'access-control-allow-origin': APP,
          'access-control-expose-headers': CORS_EXPOSE_HEADERS,
          vary: 'Origin',
        },
      });
    }
    // A POST that carries Access-Control-Request-Method is still not a preflight.
    expect(cors('POST', APP, 'POST')).toMatchObject({ kind: 'allowed' });
    expect(CORS_EXPOSE_HEADERS.split(', ')).toEqual([
      'mcp-session-id',
      'mcp-protocol-version',
      'www-authenticate',
      'retry-after',
    ]);
  });

  it('gives a foreign origin no allow header, only Vary, and says whether it was a preflight', () => {
    for (const origin of [
      'https://evil.example.test',
      'https://inspector.example.test:443',
      'https://INSPECTOR.example.test',
      'http://inspector.example.test',
      'null',
      `${APP}, ${APP}`,
    ]) {
      expect(cors('POST', origin, undefined), origin).toEqual({
        kind: 'foreign',
        preflight: false,
        headers: { vary: 'Origin' },
      });
      expect(cors('OPTIONS', origin, 'POST'), origin).toEqual({
        kind: 'foreign',
        preflight: true,
        headers: { vary: 'Origin' },
      });
    }
  });

  it('allows only the origins it was given (the public origin is in the set the server passes)', () => {
    const onlyPublic = corsPolicy(new Set([PUBLIC]));
    expect(onlyPublic('OPTIONS', PUBLIC, 'POST').kind).toBe('preflight');
    expect(onlyPublic('OPTIONS', APP, 'POST').kind).toBe('foreign');
    expect(corsPolicy(new Set())('POST', PUBLIC, undefined).kind).toBe('foreign');
  });

  it('answers with frozen objects, the same for every request of an origin (nothing allocated per call)', () => {
    const first = cors('POST', APP, undefined);
    expect(cors('POST', APP, undefined)).toBe(first);
    expect(Object.isFrozen(first)).toBe(true);
    expect(Object.isFrozen((first as { headers: object }).headers)).toBe(true);
  });
});
