// W3C Trace Context: parsing and validation (vectors after the W3C spec and its test suite), where
// a call's trace comes from (`_meta` before headers), new ids, and the upstream client sending a
// child traceparent with a fresh span id on every request, a throttle retry included.
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { UpstreamPolicy } from '../runtime/handler-api/descriptor-types.ts';
import {
  childTraceparent,
  newSpanId,
  parseTraceparent,
  parseTracestate,
  startTrace,
  traceContextFrom,
  putTraceHeaders,
  TRACESTATE_MAX,
} from '../runtime/trace-context.ts';
import { createUpstreamClient } from '../runtime/upstream/client.ts';

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const PARENT_ID = '00f067aa0ba902b7';
const VALID = `00-${TRACE_ID}-${PARENT_ID}-01`;

describe('parseTraceparent', () => {
  it('reads a version-00 traceparent', () => {
    expect(parseTraceparent(VALID)).toEqual({ traceId: TRACE_ID, parentId: PARENT_ID, flags: '01' });
    expect(parseTraceparent(`00-${TRACE_ID}-${PARENT_ID}-00`)).toEqual({
      traceId: TRACE_ID,
      parentId: PARENT_ID,
      flags: '00',
    });
  });

  it('keeps the sampled (and random) bit and zeroes flags it does not know', () => {
    expect(parseTraceparent(`00-${TRACE_ID}-${PARENT_ID}-09`)?.flags).toBe('01');
    expect(parseTraceparent(`00-${TRACE_ID}-${PARENT_ID}-ff`)?.flags).toBe('03');
    expect(parseTraceparent(`00-${TRACE_ID}-${PARENT_ID}-fe`)?.flags).toBe('02');
  });

  it.each([
    ['version ff', `ff-${TRACE_ID}-${PARENT_ID}-01`],
    ['another version', `01-${TRACE_ID}-${PARENT_ID}-01`],
    ['an all-zero trace id', `00-${'0'.repeat(32)}-${PARENT_ID}-01`],
    ['an all-zero parent id', `00-${TRACE_ID}-${'0'.repeat(16)}-01`],
    ['uppercase trace id', `00-${TRACE_ID.toUpperCase()}-${PARENT_ID}-01`],
    ['uppercase parent id', `00-${TRACE_ID}-00F067AA0BA902B7-01`],
    ['uppercase flags', `00-${TRACE_ID}-${PARENT_ID}-0A`],
    ['uppercase version', `0A-${TRACE_ID}-${PARENT_ID}-01`],
    ['a trace id one digit short', `00-${TRACE_ID.slice(1)}-${PARENT_ID}-01`],
    ['a trace id one digit long', `00-${TRACE_ID}a-${PARENT_ID}-01`],
    ['a parent id one digit short', `00-${TRACE_ID}-${PARENT_ID.slice(1)}-01`],
    ['a parent id one digit long', `00-${TRACE_ID}-${PARENT_ID}a-01`],
    ['one-digit flags', `00-${TRACE_ID}-${PARENT_ID}-1`],
    ['three-digit flags', `00-${TRACE_ID}-${PARENT_ID}-011`],
    ['an extra field for version 00', `${VALID}-what-the-future-will-not-be-like`],
    ['a trailing dash', `${VALID}-`],
    ['a non-hex digit', `00-${TRACE_ID.slice(0, 31)}g-${PARENT_ID}-01`],
    ['other separators', `00_${TRACE_ID}_${PARENT_ID}_01`],
    ['leading whitespace', ` ${VALID}`],
    ['trailing whitespace', `${VALID} `],
    ['an empty string', ''],
    ['a line break', `${VALID}\n`],
  ])('refuses %s', (_what, value) => {
    expect(parseTraceparent(value)).toBeUndefined();
  });

  it('refuses what is not a string', () => {
    for (const value of [undefined, null, 1, {}, [VALID], { traceparent: VALID }])
      expect(parseTraceparent(value)).toBeUndefined();
  });
});

describe('parseTracestate', () => {
  it('passes a valid tracestate on exactly as received', () => {
    for (const value of [
      'rojo=00f067aa0ba902b7',
      'rojo=00f067aa0ba902b7,congo=t61rcWkgMzE',
      'congo=t61rcWkgMzE , rojo=00f067aa0ba902b7',
      'a=1,,b=2',
      'tenant@vendor=x y',
      'k=v',
    ]) {
      expect(parseTracestate(value)).toBe(value);
    }
  });

  it('takes 512 characters and drops a longer one whole', () => {
    const exactly = `a=${'x'.repeat(255)},b=${'y'.repeat(252)}`;
    expect(exactly.length).toBe(TRACESTATE_MAX);
    expect(parseTracestate(exactly)).toBe(exactly);
    expect(parseTracestate(`${exactly}y`)).toBeUndefined();
    const members = Array.from({ length: 32 }, (_, i) => `k${String(i).padStart(2, '0')}=${'v'.repeat(11)}`).join(',');
    expect(members.length).toBeLessThanOrEqual(TRACESTATE_MAX);
    expect(parseTracestate(members)).toBe(members);
    const long = `${members}${'v'.repeat(TRACESTATE_MAX + 1 - members.length)}`;
    expect(long.length).toBe(TRACESTATE_MAX + 1);
    expect(parseTracestate(long)).toBeUndefined();
  });

  it.each([
    ['an uppercase key', 'Rojo=1'],
    ['a key with a space', 'ro jo=1'],
    ['no equals sign', 'rojo'],
    ['an empty key', '=1'],
    ['an empty value', 'rojo='],
    ['an equals sign in a value', 'rojo=a=b'],
    ['a control character', 'rojo=1\r\nx-injected: 1'],
    ['a non-ASCII value', 'rojo=café'],
    ['a key twice', 'rojo=1,rojo=2'],
    ['33 members', Array.from({ length: 33 }, (_, i) => `k${i}=1`).join(',')],
    ['a value of 257 characters', `rojo=${'x'.repeat(257)}`],
    ['only commas', ',,,'],
    ['an empty string', ''],
  ])('drops %s', (_what, value) => {
    expect(parseTracestate(value)).toBeUndefined();
  });
});

describe('traceContextFrom', () => {
  const OTHER = `00-${'a'.repeat(32)}-${'b'.repeat(16)}-00`;

  it('reads `_meta` traceparent and tracestate', () => {
    expect(traceContextFrom({ traceparent: VALID, tracestate: 'rojo=1' }, {})).toEqual({
      traceId: TRACE_ID,
      parentId: PARENT_ID,
      flags: '01',
      tracestate: 'rojo=1',
    });
  });

  it('reads the headers when `_meta` has none', () => {
    expect(traceContextFrom(undefined, { traceparent: VALID, tracestate: 'rojo=1' })).toEqual({
      traceId: TRACE_ID,
      parentId: PARENT_ID,
      flags: '01',
      tracestate: 'rojo=1',
    });
    expect(traceContextFrom({ progressToken: 1 }, { traceparent: VALID })).toEqual({
      traceId: TRACE_ID,
      parentId: PARENT_ID,
      flags: '01',
    });
  });

  it('lets the `_meta` keys win over the headers, tracestate included', () => {
    expect(traceContextFrom({ traceparent: VALID }, { traceparent: OTHER, tracestate: 'congo=2' })).toEqual({
      traceId: TRACE_ID,
      parentId: PARENT_ID,
      flags: '01',
    });
  });

  it('falls back to the headers when `_meta` traceparent is invalid, and mixes no tracestate across sources', () => {
    expect(
      traceContextFrom({ traceparent: VALID.toUpperCase(), tracestate: 'rojo=1' }, { traceparent: OTHER }),
    ).toEqual({ traceId: 'a'.repeat(32), parentId: 'b'.repeat(16), flags: '00' });
  });

  it('has nothing without a valid traceparent, whatever the tracestate', () => {
    expect(traceContextFrom(undefined, {})).toBeUndefined();
    expect(traceContextFrom(null, { tracestate: 'rojo=1' })).toBeUndefined();
    expect(traceContextFrom('00', undefined)).toBeUndefined();
    expect(traceContextFrom({ traceparent: 'ff-x' }, { traceparent: 'garbage' })).toBeUndefined();
  });

  it('refuses repeated traceparent headers and combines repeated tracestate headers', () => {
    expect(traceContextFrom(undefined, { traceparent: [VALID, OTHER] })).toBeUndefined();
    expect(traceContextFrom(undefined, { traceparent: `${VALID}, ${OTHER}` })).toBeUndefined();
    expect(traceContextFrom(undefined, { traceparent: [VALID], tracestate: ['rojo=1', 'congo=2'] })?.tracestate).toBe(
      'rojo=1,congo=2',
    );
  });

  it('drops an invalid tracestate and keeps the traceparent', () => {
    expect(traceContextFrom({ traceparent: VALID, tracestate: 'x'.repeat(600) }, {})).toEqual({
      traceId: TRACE_ID,
      parentId: PARENT_ID,
      flags: '01',
    });
  });
});

describe('new ids', () => {
  it('makes span ids of 16 lowercase hex digits, all different', () => {
    const ids = new Set(Array.from({ length: 2000 }, newSpanId));
    expect(ids.size).toBe(2000);
    for (const id of ids) expect(id).toMatch(/^[0-9a-f]{16}$/);
  });

  it('starts a sampled trace with a random trace id', () => {
    const a = startTrace();
    expect(a).toEqual({ traceId: expect.stringMatching(/^[0-9a-f]{32}$/), flags: '01' });
    expect(startTrace().traceId).not.toBe(a.traceId);
  });

  it('makes a child traceparent of the same trace and flags with a fresh span id', () => {
    const trace = parseTraceparent(`00-${TRACE_ID}-${PARENT_ID}-00`)!;
    const child = parseTraceparent(childTraceparent(trace));
    expect(child).toMatchObject({ traceId: TRACE_ID, flags: '00' });
    expect(child!.parentId).not.toBe(PARENT_ID);
    expect(putTraceHeaders({}, { ...trace, tracestate: 'rojo=1' })).toEqual({
      traceparent: expect.stringMatching(new RegExp(`^00-${TRACE_ID}-[0-9a-f]{16}-00$`)),
      tracestate: 'rojo=1',
    });
    expect(putTraceHeaders({}, trace)).not.toHaveProperty('tracestate');
  });
});

describe('upstream client with a trace', () => {
  const seen: IncomingHttpHeaders[] = [];
  let throttleNext = 0;
  const server = createServer((req, res) => {
    seen.push(req.headers);
    req.resume();
    if (throttleNext > 0) {
      throttleNext--;
      res.writeHead(429, { 'retry-after': '0', 'content-type': 'application/json' }).end('{}');
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
  });
  let baseUrl = '';
  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const policy = (): UpstreamPolicy => ({
    name: 'Test',
    baseUrl,
    timeoutMs: 2000,
    retry: { onThrottle: 'once', maxWaitMs: 10, defaultWaitMs: 0 },
    maxResponseBytes: 1024,
  });

  it('sends every request, a retry too, in the same trace with its own span id, tracestate unchanged', async () => {
    seen.length = 0;
    const trace = { ...parseTraceparent(VALID)!, tracestate: 'rojo=00f067aa0ba902b7,congo=t61rcWkgMzE' };
    const client = createUpstreamClient({ policy: policy(), trace, sleep: async () => {} });
    throttleNext = 1;
    await client.request({ method: 'GET', path: '/a' }); // 429, then the retry
    await client.request({
      method: 'POST',
      path: '/b',
      json: {},
      headers: { traceparent: 'handler-made', tracestate: 'not=this' },
    });
    expect(seen).toHaveLength(3);
    const parents = seen.map((h) => parseTraceparent(h.traceparent));
    for (const p of parents) expect(p).toMatchObject({ traceId: TRACE_ID, flags: '01' });
    const spans = parents.map((p) => p!.parentId);
    expect(new Set([...spans, PARENT_ID]).size).toBe(4);
    expect(seen.map((h) => h.tracestate)).toEqual(Array(3).fill(trace.tracestate));
  });

  it('adds no trace header when the client has no trace', async () => {
    seen.length = 0;
    await createUpstreamClient({ policy: policy() }).request({ method: 'GET', path: '/c' });
    expect(seen[0]).not.toHaveProperty('traceparent');
    expect(seen[0]).not.toHaveProperty('tracestate');
  });
});
