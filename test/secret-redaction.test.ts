// An upstream that repeats the connection's key — in a validation text the spec renders for the
// client, in an error the gateway logs, in a body it returns — never gets it into a tool result, a
// log line or /metrics: one redactor per call scrubs all three (runtime/redact.ts). Upstream: nock.
import { Writable } from 'node:stream';
import nock from 'nock';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { registry } from '../generated/registry.ts';
import { createLogger } from '../runtime/operations/observability.ts';
import { openStore } from '../runtime/store/open-store.ts';
import type { PlatformStore } from '../runtime/store/store.ts';
import { MIN_SECRET_CHARS, REDACTED, Redactor } from '../runtime/redact.ts';
import { UpstreamGraphQLError } from '../handlers/cases/graphql-client.ts';
import {
  connectTenant,
  createTenant,
  mcpClient,
  startGateway,
  type StartedGateway,
  type Tenant,
} from './support/gateway.ts';
import { testContext } from './support/tool-context.ts';

// Distinctive, with characters that URL-encoding changes (the upstream may echo either form).
const SECRET = 'zq9X/echoKey+7731Wv=';
const UPSTREAM = 'https://cases-echo.test';

type Result = { content: Array<{ type: string; text: string }>; isError?: boolean; structuredContent?: unknown };

describe('a secret echoed by the upstream', () => {
  let store: PlatformStore;
  let gw: StartedGateway;
  let tenant: Tenant;
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk, _encoding, done) {
      lines.push(...String(chunk).split('\n').filter(Boolean));
      done();
    },
  });

  beforeAll(async () => {
    store = await openStore({});
    gw = await startGateway(store, {
      logger: createLogger('debug', destination),
      env: { CONNECTOR_CASES_BASE_URL: `${UPSTREAM}/graphql`, RATE_LIMIT_BURST: '1000' },
    });
    tenant = await createTenant(store, { subscribe: ['cases'] });
    await connectTenant(gw, tenant, 'cases', { apiKey: SECRET });
  }, 60_000);
  afterAll(async () => {
    await gw?.close();
    await store?.close();
  });
  afterEach(() => nock.cleanAll());

  const query = async (
    reply: (request: Request) => Promise<[number, unknown]> | [number, unknown],
  ): Promise<Result> => {
    const scope = nock(UPSTREAM)
      .post('/graphql')
      .reply(async (request: Request) => reply(request));
    const client = await mcpClient(gw.url, 'cases', tenant.token);
    try {
      return (await client.callTool({
        name: 'cases__graphql_query',
        arguments: { query: '{ cases { items { id } } }' },
      })) as Result;
    } finally {
      await client.close();
      expect(scope.isDone()).toBe(true);
    }
  };

  /** The secret in any form the upstream may have echoed, or the caller's own token. */
  const leaks = (text: string) =>
    [SECRET, encodeURIComponent(SECRET), Buffer.from(SECRET).toString('base64'), tenant.token].filter((s) =>
      text.includes(s),
    );

  it('is redacted from the spec text "<upstream> rejected the request: <field>: <messages>"', async () => {
    const result = await query(async (request) => {
      // The upstream really was sent the key (as a bearer token), and echoes it back.
      expect(request.headers.get('authorization')).toBe(`Bearer ${SECRET}`);
      return [
        200,
        {
          errors: [
            {
              message: 'validation',
              extensions: {
                validation: { apiKey: [`The key ${SECRET} (${encodeURIComponent(SECRET)}) has no access`] },
              },
            },
          ],
        },
      ];
    });
    expect(result.isError).toBe(true);
    expect(result.content[0]!.text).toBe(
      `Ordrestyring rejected the request: apiKey: The key ${REDACTED} (${REDACTED}) has no access`,
    );
    expect(leaks(JSON.stringify(result))).toEqual([]);
  });

  it('is redacted from the "handler failed" log line of an upstream error, bearer and caller token too', async () => {
    const before = lines.length;
    const result = await query(() => [
      500,
      {
        errors: [
          {
            message:
              `key ${SECRET} refused; sent Authorization: bearer ${SECRET}; caller ` +
              `${tenant.token}; basic ${Buffer.from(SECRET).toString('base64')}`,
          },
        ],
      },
    ]);
    expect(result.content[0]!.text).toBe('Tool invocation failed.');
    const logged = lines.slice(before).map((l) => JSON.parse(l) as { msg: string; err?: { message: string } });
    const failed = logged.find((l) => l.msg === 'handler failed');
    expect(failed?.err?.message).toBe(
      `key ${REDACTED} refused; sent Authorization: bearer ${REDACTED}; caller ${REDACTED}; basic ${REDACTED}`,
    );
    expect(leaks(lines.slice(before).join('\n'))).toEqual([]);
  });

  it('is redacted from a successful result that carries it', async () => {
    const result = await query(() => [200, { data: { me: { note: `your key is ${SECRET}`, keys: [SECRET] } } }]);
    expect(result.isError).toBeFalsy();
    expect(JSON.parse(result.content[0]!.text)).toEqual({ me: { note: `your key is ${REDACTED}`, keys: [REDACTED] } });
    expect(leaks(JSON.stringify(result))).toEqual([]);
  });

  it('is redacted from what a handler logs through ctx.log, and is in no log line and no metric', async () => {
    // The document check logs why it refused a document through the handler's own logger; a
    // secret shaped like a GraphQL name reaches that line as an unknown fragment's name.
    const nameSecret = 'zq9XechoKeyAsName7731Wv';
    const other = await createTenant(store, { subscribe: ['cases'] });
    await connectTenant(gw, other, 'cases', { apiKey: nameSecret });
    const before = lines.length;
    const client = await mcpClient(gw.url, 'cases', other.token);
    try {
      const refused = (await client.callTool({
        name: 'cases__graphql_query',
        arguments: { query: `{ ...${nameSecret} }` },
      })) as Result;
      expect(refused.content[0]!.text).toBe('Tool invocation failed.');
    } finally {
      await client.close();
    }
    const warned = lines
      .slice(before)
      .map((l) => JSON.parse(l) as { msg: string; detail?: string })
      .find((l) => l.msg === 'document refused before any upstream request');
    expect(warned?.detail).toBe(`Unknown fragment "${REDACTED}".`);
    expect(lines.join('\n')).not.toContain(nameSecret);
    const metrics = await (await fetch(`${gw.url}/metrics`)).text();
    expect(metrics).toContain('gateway_tool_calls_total');
    expect(leaks(metrics)).toEqual([]);
    expect(lines.length).toBeGreaterThan(5);
    expect(leaks(lines.join('\n'))).toEqual([]);
  });
});

describe('Redactor', () => {
  it("replaces a connection's secret values in their usual encodings, and bearer-shaped tokens of anyone", () => {
    const r = Redactor.of({ kind: 'login_company', username: 'ops-user', password: 'pw-Secret%42 x', companyId: '7' });
    const basic = Buffer.from('ops-user:pw-Secret%42 x').toString('base64');
    expect(
      r.text(
        `p=pw-Secret%42 x u=${encodeURIComponent('pw-Secret%42 x')} ` +
          `f=pw-Secret%2542+x b=${basic} j=${JSON.stringify('pw-Secret%42 x')}`,
      ),
    ).toBe(`p=${REDACTED} u=${REDACTED} f=${REDACTED} b=${REDACTED} j="${REDACTED}"`);
    // A username or company number names rather than authenticates: it stays readable.
    expect(r.text('user ops-user in company 7')).toBe('user ops-user in company 7');
    expect(r.text('Authorization: BEARER abc.def-ghi_jkl and Bearer tokens')).toBe(
      `Authorization: BEARER ${REDACTED} and Bearer tokens`,
    );
    expect(Redactor.patterns.text('token cgw_AbCdEfGhIjKlMnOpQrStUvWxYz012345 used')).toBe(`token ${REDACTED} used`);
  });

  it(`leaves values shorter than ${MIN_SECRET_CHARS} characters alone (they cannot be told from ordinary text)`, () => {
    expect(Redactor.of({ kind: 'api_key', apiKey: 'ab1' }).text('ab1 and cab1')).toBe('ab1 and cab1');
    expect(Redactor.of({ kind: 'api_key', apiKey: 'ab12' }).text('ab12')).toBe(REDACTED);
  });

  it('scrubs nested values, keys and errors without touching what has no secret', () => {
    const r = Redactor.of({ kind: 'static_token', token: 'tok-9f8e7d' });
    const clean = { a: [1, { b: 'x' }] };
    expect(r.value(clean)).toBe(clean);
    expect(r.value({ a: [{ 'tok-9f8e7d': 'tok-9f8e7d' }], e: new Error('bad tok-9f8e7d') })).toMatchObject({
      a: [{ [REDACTED]: REDACTED }],
      e: { message: `bad ${REDACTED}` },
    });
    const echoed = new UpstreamGraphQLError('x');
    Object.assign(echoed, { body: { errors: [{ message: 'tok-9f8e7d' }] } });
    const copy = r.value(echoed) as UpstreamGraphQLError & { body: unknown };
    expect(copy).toBeInstanceOf(UpstreamGraphQLError);
    expect(copy.body).toEqual({ errors: [{ message: REDACTED }] });
    expect(copy.stack).not.toContain('tok-9f8e7d');
  });

  it('scrubs the failure summary a handler puts into a result before the handler can cut it short', () => {
    const ctx = testContext({
      descriptor: registry.cases.descriptor,
      tool: 'get_case_work_summary',
      credential: { kind: 'api_key', apiKey: SECRET },
      baseUrl: UPSTREAM,
    });
    let caught: unknown;
    try {
      ctx.fail('upstream_validation', { field: 'caseId', messages: `${'x'.repeat(150)} ${SECRET}` });
    } catch (error) {
      caught = error;
    }
    expect(ctx.describeFailure(caught)).toEqual({
      name: 'UpstreamValidationError',
      message: `Ordrestyring rejected the request: caseId: ${'x'.repeat(150)} ${REDACTED}`,
    });
    // A failure the spec does not name is the generic text: neither its words nor the secret in them reach the result.
    expect(ctx.describeFailure(new UpstreamGraphQLError(`${'x'.repeat(190)} ${SECRET}`))).toEqual({
      name: 'GraphQLError',
      message: registry.cases.descriptor.errors.generic.text,
    });
  });
});
