// The call log, usage by day/instance/user and the client setup in the portal (issue 36, items 6 and
// 7): calls through the gateway appear on the Calls page with their outcome class, filter by instance,
// tool, outcome and user, page, and export as CSV; a member sees only their own calls; nothing of an
// argument or a result is stored; the Usage page shows this and past months by day, instance and user
// with a CSV; the Connections page shows the mcpServers snippets and the OAuth URLs, never a token.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sandboxEnv } from '../bin/demo.ts';
import { issueToken } from '../runtime/auth/caller-tokens.ts';
import { openStore } from '../runtime/store/open-store.ts';
import type { PlatformStore } from '../runtime/store/store.ts';
import { startSandboxes, type SandboxSet } from '../sandbox/index.ts';
import {
  connectTenant,
  createTenant,
  mcpClient,
  resultText,
  startGateway,
  type StartedGateway,
  type Tenant,
} from './support/gateway.ts';
import { portalAs } from './support/portal.ts';

const SECRET_ARGUMENT = 'zq7-argument-Kx41-kept-out';

/** The body rows of the first table of a page, as their cell texts (tags stripped). */
function tableRows(html: string): string[][] {
  const body = /<tbody>([\s\S]*?)<\/tbody>/.exec(html)?.[1] ?? '';
  return [...body.matchAll(/<tr>([\s\S]*?)<\/tr>/g)].map((m) =>
    [...m[1]!.matchAll(/<t[dh][^>]*>([\s\S]*?)<\/t[dh]>/g)].map((c) => c[1]!.replace(/<[^>]+>/g, '')),
  );
}

describe('the call log, usage breakdown and client setup in the portal', () => {
  let store: PlatformStore;
  let sandboxes: SandboxSet;
  let gw: StartedGateway;
  let admin: Tenant;
  let member: { id: string; email: string; token: string };
  let rawStored = '';

  beforeAll(async () => {
    store = await openStore({});
    sandboxes = await startSandboxes({ connectors: ['cases'] });
    gw = await startGateway(store, {
      env: { ...sandboxEnv(sandboxes), RATE_LIMIT_BURST: '1000', RATE_LIMIT_PER_SECOND: '1000', CALL_LOG_DAYS: '14' },
    });
    admin = await createTenant(store, { subscribe: ['cases'] });
    const user = await store.users.createUser({
      accountId: admin.account.id,
      email: `member-${Date.now()}@example.test`,
      name: 'Mia Member',
      role: 'member',
    });
    await store.users.acceptTerms(user.id, new Date());
    await store.users.setSeat(user.id, 'cases', true);
    member = { id: user.id, email: user.email, token: (await issueToken(store, user.id, 'mia-laptop')).token };
    const credential = sandboxes.started.get('cases')!.running.tenantCredential as Record<string, unknown>;
    await connectTenant(gw, admin, 'cases', credential);
    const assistant = await mcpClient(gw.url, 'cases', admin.token);
    for (let i = 0; i < 2; i++) {
      const ok = await assistant.callTool({ name: 'cases__find_cases', arguments: { text: SECRET_ARGUMENT } });
      expect(ok.isError ?? false, resultText(ok)).toBe(false);
    }
    const refused = await assistant.callTool({ name: 'cases__no_such_tool', arguments: { text: SECRET_ARGUMENT } });
    expect(refused.isError).toBe(true);
    await assistant.close();
    const colleague = await mcpClient(gw.url, 'cases', member.token);
    await colleague.callTool({ name: 'cases__list_cases', arguments: {} });
    await colleague.close();
    await gw.app.context.callLog.flush();
    rawStored = JSON.stringify(await store.callLog.listCalls(admin.account.id, {}, 100, 0));
  }, 90_000);
  afterAll(async () => {
    await gw?.close();
    await sandboxes?.close();
    await store?.close();
  });

  it('records each call with its outcome class, user and token, and never an argument or a result', async () => {
    const calls = await store.callLog.listCalls(admin.account.id, {}, 100, 0);
    expect(calls.map((c) => [c.tool, c.outcome, c.detail])).toEqual([
      ['list_cases', 'ok', 'ok'],
      ['cases__no_such_tool', 'refused', 'unknown_tool'],
      ['find_cases', 'ok', 'ok'],
      ['find_cases', 'ok', 'ok'],
    ]);
    expect(calls[0]).toMatchObject({ userId: member.id, tokenLabel: 'mia-laptop', instanceId: 'cases' });
    expect(calls[2]).toMatchObject({ userId: admin.user.id, tokenLabel: 'test' });
    expect(calls[1]!.durationMs).toBeNull();
    expect(typeof calls[2]!.durationMs).toBe('number');
    expect(rawStored).not.toContain(SECRET_ARGUMENT);
    expect(rawStored).not.toContain(admin.token);
  });

  it('shows the calls to an administrator, filtered by instance, tool, outcome and user', async () => {
    const portal = await portalAs(gw, admin.user);
    const all = await portal.get('/portal/calls');
    expect(all.status).toBe(200);
    expect(tableRows(all.html)).toHaveLength(4);
    expect(all.html).toContain('last 14 days');
    expect(all.html).not.toContain(SECRET_ARGUMENT);
    const refused = tableRows((await portal.get('/portal/calls?outcome=refused')).html);
    expect(refused.map((row) => row[4])).toEqual(['unknown_tool']);
    const byTool = tableRows((await portal.get('/portal/calls?tool=find_cases')).html);
    expect(byTool).toHaveLength(2);
    const byUser = tableRows((await portal.get(`/portal/calls?user=${member.id}`)).html);
    expect(byUser.map((row) => row[2])).toEqual(['list_cases']);
    expect(tableRows((await portal.get('/portal/calls?instance=cases-2')).html)).toEqual([]);
    // A filter value that is not a plain name matches nothing special: it is ignored.
    expect(tableRows((await portal.get('/portal/calls?outcome=%3Cscript%3E')).html)).toHaveLength(4);
  });

  it('shows a member only their own calls, whatever user they ask for', async () => {
    const portal = await portalAs(gw, member);
    const page = await portal.get(`/portal/calls?user=${admin.user.id}`);
    expect(page.status).toBe(200);
    const rows = tableRows(page.html);
    expect(rows.map((row) => row[2])).toEqual(['list_cases']);
    expect(page.html).not.toContain('id="f-user"');
    const csv = await portal.get(`/portal/calls.csv?user=${admin.user.id}`);
    expect(csv.html.trim().split('\r\n')).toHaveLength(2);
  });

  it('exports the calls the filters match as CSV, without arguments', async () => {
    const portal = await portalAs(gw, admin.user);
    const csv = await portal.get('/portal/calls.csv?outcome=ok');
    expect(csv.status).toBe(200);
    expect(csv.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(csv.headers.get('content-disposition')).toBe('attachment; filename="calls.csv"');
    const lines = csv.html
      .replace(/^\ufeff/, '')
      .trim()
      .split('\r\n');
    expect(lines[0]).toBe('When (UTC),Endpoint instance,Tool,Outcome,Code,User,Token,Duration (ms)');
    expect(lines).toHaveLength(4);
    expect(lines[1]).toContain(`,cases,list_cases,ok,ok,${member.email},mia-laptop,`);
    expect(csv.html).not.toContain(SECRET_ARGUMENT);
  });

  it('pages the call log', async () => {
    const other = await createTenant(store, { subscribe: ['cases'] });
    const base = Date.parse('2026-11-01T00:00:00Z');
    await store.callLog.addCalls(
      Array.from({ length: 53 }, (_, i) => ({
        accountId: other.account.id,
        at: new Date(base + i * 1000),
        instanceId: 'cases',
        tool: `tool_${String(i).padStart(2, '0')}`,
        outcome: 'ok' as const,
        detail: 'ok',
        userId: other.user.id,
        tokenId: '',
        durationMs: 5,
      })),
      [],
    );
    const portal = await portalAs(gw, other.user);
    const first = await portal.get('/portal/calls');
    expect(tableRows(first.html)).toHaveLength(50);
    expect(tableRows(first.html)[0]![2]).toBe('tool_52');
    expect(first.html).toContain('href="/portal/calls?page=2"');
    expect(first.html).not.toContain('Newer calls');
    const second = await portal.get('/portal/calls?page=2');
    expect(tableRows(second.html).map((row) => row[2])).toEqual(['tool_02', 'tool_01', 'tool_00']);
    expect(second.html).toContain('Newer calls');
    expect(second.html).not.toContain('Older calls');
  });

  it('shows usage of this month by day, instance and user, and past months, with a CSV', async () => {
    const portal = await portalAs(gw, admin.user);
    const month = gw.app.context.meter.month(gw.app.context.now());
    const page = await portal.get('/portal/usage');
    expect(page.status).toBe(200);
    expect(page.html).toContain(`Calls by endpoint instance in ${month}`);
    expect(page.html).toContain('Mia Member &lt;');
    // Refused calls are not usage: 2 + 1 metered calls.
    const byInstance = /Calls by endpoint instance[\s\S]*?<tbody>([\s\S]*?)<\/tbody>/.exec(page.html)?.[1] ?? '';
    expect(byInstance).toMatch(/<td( data-label="[^"]*")?>3<\/td>/);
    await store.usage.addUsage([
      { accountId: admin.account.id, month: '2025-01', connectorId: 'cases', tool: 'get_case', calls: 7, costUnits: 7 },
    ]);
    await store.callLog.addCalls(
      [],
      [{ accountId: admin.account.id, day: '2025-01-09', instanceId: 'cases-2', userId: member.id, calls: 7 }],
    );
    const past = await portal.get('/portal/usage?month=2025-01');
    expect(past.html).toContain('<option value="2025-01" selected>');
    expect(past.html).toContain('The whole month 2025-01.');
    expect(past.html).toContain('get_case');
    expect(past.html).toContain('2025-01-09');
    expect(past.html).not.toContain('cost units used');
    const csv = await portal.get('/portal/usage.csv?month=2025-01');
    expect(csv.headers.get('content-disposition')).toBe('attachment; filename="usage-2025-01.csv"');
    expect(
      csv.html
        .replace(/^\ufeff/, '')
        .trim()
        .split('\r\n'),
    ).toEqual(['Day,Endpoint instance,User,Calls', `2025-01-09,cases-2,${member.email},7`]);
    // A month in the future or not a month at all shows the current month.
    expect((await portal.get('/portal/usage?month=2999-01')).html).toContain(`<option value="${month}" selected>`);
  });

  it("shows a member the account's totals by day and instance, but by user and in the CSV only their own", async () => {
    const portal = await portalAs(gw, member);
    const page = await portal.get('/portal/usage');
    expect(page.status).toBe(200);
    const byUser = /Calls by user[\s\S]*?<tbody>([\s\S]*?)<\/tbody>/.exec(page.html)?.[1] ?? '';
    expect(byUser).toContain('Mia Member');
    expect(byUser).not.toContain(admin.user.email);
    const byInstance = /Calls by endpoint instance[\s\S]*?<tbody>([\s\S]*?)<\/tbody>/.exec(page.html)?.[1] ?? '';
    expect(byInstance).toMatch(/<td( data-label="[^"]*")?>3<\/td>/);
    const csv = await portal.get('/portal/usage.csv');
    expect(csv.html).toContain(member.email);
    expect(csv.html).not.toContain(admin.user.email);
  });

  it('shows per endpoint the mcpServers snippets and the OAuth URLs, never a token', async () => {
    const portal = await portalAs(gw, admin.user);
    const page = await portal.get('/portal/connections');
    const url = `${gw.app.context.config.publicBaseUrl}/cases/mcp`;
    const decoded = page.html
      .replace(/&quot;/g, '"')
      .replace(/&lt;/g, '<')
      .replace(/&gt;/g, '>');
    expect(decoded).toContain(`{\n  "mcpServers": {\n    "cases": {\n      "url": "${url}"\n    }\n  }\n}`);
    expect(decoded).toContain('"Authorization": "Bearer YOUR_API_TOKEN"');
    expect(decoded).toContain(`.well-known/oauth-protected-resource/cases/mcp`);
    expect(decoded).toContain(`OAuth resource (the endpoint): ${url}`);
    expect(page.html).not.toContain(admin.token);
  });
});
