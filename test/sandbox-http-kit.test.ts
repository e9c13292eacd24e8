// The shared kit of the sandbox servers: one sendJson (exact header order and bytes, per-upstream
// style), the route tables (findRoute over paths, findSegmentRoute over decoded segments), and the
// size rule of the sandboxes built on it (issue 32, item 5).
import { readdirSync, readFileSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { join } from 'node:path';
import { Node, Project } from 'ts-morph';
import { describe, expect, it } from 'vitest';
import { findRoute, findSegmentRoute, JSON_CONTENT_TYPE, type Route, sendJson } from '../sandbox/http-kit.ts';

/** A ServerResponse stand-in recording writeHead and end. */
function recorder(): {
  res: ServerResponse;
  status: () => number;
  headers: () => [string, unknown][];
  body: () => string;
} {
  let status = 0;
  let headers: Record<string, unknown> = {};
  let body = '';
  const res = {
    writeHead(s: number, h: Record<string, unknown>) {
      status = s;
      headers = h;
      return res;
    },
    end(text: string) {
      body = text;
      return res;
    },
  };
  return {
    res: res as unknown as ServerResponse,
    status: () => status,
    headers: () => Object.entries(headers),
    body: () => body,
  };
}

describe('sandbox http-kit: sendJson', () => {
  it('sends compact JSON with content-type then content-length (in bytes), then extra headers', () => {
    const r = recorder();
    sendJson(r.res, 201, { name: 'Ærø' }, { location: '/x/1' });
    expect(r.status()).toBe(201);
    expect(r.body()).toBe('{"name":"Ærø"}');
    expect(r.headers()).toEqual([
      ['content-type', JSON_CONTENT_TYPE],
      ['content-length', 16],
      ['location', '/x/1'],
    ]);
  });

  it("keeps an upstream's spelling and its fixed headers between content-type and content-length", () => {
    const r = recorder();
    sendJson(
      r.res,
      400,
      { error: 'invalid_grant' },
      {},
      { contentType: 'application/json; charset=UTF-8', headers: { 'cache-control': 'no-store', pragma: 'no-cache' } },
    );
    expect(r.headers().map(([k]) => k)).toEqual(['content-type', 'cache-control', 'pragma', 'content-length']);
    expect(r.headers()[0]).toEqual(['content-type', 'application/json; charset=UTF-8']);
  });

  it("writes the call's headers first when the style asks (Laravel: rate-limit headers before content-type)", () => {
    const r = recorder();
    sendJson(
      r.res,
      429,
      { message: 'x' },
      { 'x-ratelimit-limit': '60', 'retry-after': '3' },
      { contentType: 'application/json', callHeadersFirst: true },
    );
    expect(r.headers()).toEqual([
      ['x-ratelimit-limit', '60'],
      ['retry-after', '3'],
      ['content-type', 'application/json'],
      ['content-length', 15],
    ]);
  });

  it('pretty prints with two spaces and a final newline (Elasticsearch ?pretty)', () => {
    const r = recorder();
    sendJson(r.res, 200, { a: [1] }, {}, { pretty: true });
    expect(r.body()).toBe('{\n  "a": [\n    1\n  ]\n}\n');
    expect(r.headers()).toContainEqual(['content-length', Buffer.byteLength(r.body())]);
  });
});

describe('sandbox http-kit: route tables', () => {
  const routes: Route<string>[] = [
    { method: 'GET', path: '/__sandbox/stats', handle: 'stats' },
    { method: 'POST', path: '/__sandbox/stats', handle: 'post-stats' },
    { path: /^\/sites\/([^/]+)(?:\/(query))?$/, handle: 'site' },
    { path: '/anything', handle: 'any-method' },
  ];

  it('matches the method and the exact path, first route first', () => {
    expect(findRoute(routes, 'GET', '/__sandbox/stats')).toEqual({ handle: 'stats', params: [] });
    expect(findRoute(routes, 'POST', '/__sandbox/stats')).toEqual({ handle: 'post-stats', params: [] });
    expect(findRoute(routes, 'DELETE', '/__sandbox/stats')).toBeUndefined();
    expect(findRoute(routes, 'PATCH', '/anything')?.handle).toBe('any-method');
    expect(findRoute(routes, 'GET', '/anything/else')).toBeUndefined();
  });

  it("hands a pattern's groups to the handler ('' for a group that did not take part)", () => {
    expect(findRoute(routes, 'GET', '/sites/sc-domain%3Aexample.dk/query')).toEqual({
      handle: 'site',
      params: ['sc-domain%3Aexample.dk', 'query'],
    });
    expect(findRoute(routes, 'GET', '/sites/a')).toEqual({ handle: 'site', params: ['a', ''] });
  });

  it('matches path templates segment by segment, so a decoded identifier holding a slash stays one segment', () => {
    const segmentRoutes: Route<string>[] = [
      { method: 'GET', path: '/', handle: 'root' },
      { method: 'GET', path: '/accounting-years/:year/periods', handle: 'periods' },
      { method: 'GET', path: '/:resource/:id', handle: 'item' },
      { method: 'PUT', path: '/customers/:n', handle: 'put' },
    ];
    expect(findSegmentRoute(segmentRoutes, 'GET', [])).toEqual({ handle: 'root', params: [] });
    expect(findSegmentRoute(segmentRoutes, 'GET', ['accounting-years', '2023/2024', 'periods'])).toEqual({
      handle: 'periods',
      params: ['2023/2024'],
    });
    expect(findSegmentRoute(segmentRoutes, 'GET', ['customers', '7'])).toEqual({
      handle: 'item',
      params: ['customers', '7'],
    });
    expect(findSegmentRoute(segmentRoutes, 'PUT', ['customers', '7'])).toEqual({ handle: 'put', params: ['7'] });
    expect(findSegmentRoute(segmentRoutes, 'PUT', ['customers'])).toBeUndefined();
    expect(findSegmentRoute(segmentRoutes, 'GET', ['accounting-years', '2023', 'totals'])).toBeUndefined();
  });

  it('lets a template ending in /* match zero or more further segments, which are not handed over', () => {
    const openRoutes: Route<string>[] = [
      { method: 'GET', path: '/contacts/:guid/notes', handle: 'notes' },
      { method: 'GET', path: '/contacts/:guid/*', handle: 'below' },
    ];
    expect(findSegmentRoute(openRoutes, 'GET', ['contacts', 'g', 'notes'])).toEqual({ handle: 'notes', params: ['g'] });
    expect(findSegmentRoute(openRoutes, 'GET', ['contacts', 'g'])).toEqual({ handle: 'below', params: ['g'] });
    expect(findSegmentRoute(openRoutes, 'GET', ['contacts', 'a/b', 'x', 'y'])).toEqual({
      handle: 'below',
      params: ['a/b'],
    });
    expect(findSegmentRoute(openRoutes, 'GET', ['contacts'])).toBeUndefined();
    expect(findSegmentRoute(openRoutes, 'POST', ['contacts', 'g', 'x'])).toBeUndefined();
  });
});

describe('sandbox servers built on the kit', () => {
  const root = join(import.meta.dirname, '..', 'sandbox');
  const folders = ['invoicing', 'search', 'register', 'identity', 'books', 'erp', 'cases', 'ledger'];
  /** A top-level `function sendJson` that calls writeHead before its closing brace. */
  const OWN_SEND_JSON = /function sendJson\b[^\n]*\n(?:(?!\n\}\n)[\s\S])*?writeHead\(/;

  it('have no source file over 500 lines except their data.ts', () => {
    const long = folders.flatMap((folder) =>
      readdirSync(join(root, folder))
        .filter((file) => file.endsWith('.ts') && file !== 'data.ts')
        .map((file) => ({
          file: `${folder}/${file}`,
          lines: readFileSync(join(root, folder, file), 'utf8').split('\n').length,
        }))
        .filter(({ lines }) => lines > 500),
    );
    expect(long).toEqual([]);
  });

  it('have no function over 120 lines except the ones whose reason is written next to them', () => {
    /** Functions allowed to be longer, each with its reason in a comment above it. */
    const explained = new Set(['cases/sdl.ts:casesSdl']);
    const project = new Project({ useInMemoryFileSystem: true });
    const long: string[] = [];
    for (const folder of folders)
      for (const file of readdirSync(join(root, folder)).filter((name) => name.endsWith('.ts') && name !== 'data.ts')) {
        project
          .createSourceFile(`${folder}/${file}`, readFileSync(join(root, folder, file), 'utf8'))
          .forEachDescendant((node) => {
            if (
              !Node.isFunctionDeclaration(node) &&
              !Node.isArrowFunction(node) &&
              !Node.isFunctionExpression(node) &&
              !Node.isMethodDeclaration(node)
            )
              return;
            const lines = node.getEndLineNumber() - node.getStartLineNumber() + 1;
            const name = Node.isFunctionDeclaration(node) ? node.getName() : undefined;
            if (lines > 120 && !explained.has(`${folder}/${file}:${name}`))
              long.push(`${folder}/${file}:${node.getStartLineNumber()} (${lines} lines)`);
          });
      }
    expect(long).toEqual([]);
  });

  it('send JSON through the kit, not through a copy of sendJson that writes its own headers', () => {
    const copies = folders.flatMap((folder) =>
      readdirSync(join(root, folder))
        .filter((file) => file.endsWith('.ts'))
        .filter((file) => OWN_SEND_JSON.test(readFileSync(join(root, folder, file), 'utf8')))
        .map((file) => `${folder}/${file}`),
    );
    expect(copies).toEqual([]);
  });
});
