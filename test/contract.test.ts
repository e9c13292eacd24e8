// The contract every connector keeps, driven by the generated descriptors: one gateway over the
// sandboxes, one tenant entitled to and connected on every connector, and for every connector
//   1. tools/list on `<id>` and `<id>-2` (the SDK Client and the raw JSON) serves the descriptor;
//   2. every argument bound is probed just inside (reaches the handler, metered once) and just
//      outside (the connector's generic error, not metered, no upstream request);
//   3. every error code a landed tool can return is quoted or checked by some other test.
// Nothing is listed per tool except the four named lists below (known listing bugs, known argument
// bugs, base value overrides, untested error codes), each of which fails the suite when stale.
// Inside probes of tools in test/pending-handlers.ts are skipped visibly (`it.skip` per tool).
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registry, type ConnectorKey } from '../generated/registry.ts';
import type { ConnectorModule } from '../runtime/handler-api/descriptor-types.ts';
import { pendingHandlers } from './pending-handlers.ts';
import { type PlatformErrorCode, platformDescriptor } from '../generated/platform/descriptor.ts';
import { formatText } from '../runtime/handler-api/tool-error.ts';
import {
  baseArguments,
  failureShapeProblem,
  inputSchemaOf,
  landedErrorCodes,
  listingProblems,
  mentionsErrorCode,
  outputProblem,
  probeDisagreements,
  REJECTED_CREDENTIALS,
  staleOverrides,
  startContractEnvironment,
  testFiles,
  toolProbes,
  unsupportedKeywords,
  type BaseValueOverrides,
  type ContractEnvironment,
  type ListedTool,
  type Probe,
  withoutDeprecatedDescriptions,
} from './support/contract.ts';
import { createTenant, mcpClient, resultText, rpc, type Tenant, usageOf } from './support/gateway.ts';
import { renderToolReferences } from '../runtime/gateway-context.ts';
import {
  BOOKS_BIG_FILE_GUID,
  BOOKS_DEMO_ORG_ID,
  BOOKS_REMINDED_INVOICE_GUID,
  BOOKS_YEARS,
  booksDataset,
} from '../sandbox/books/data.ts';
import { DEMO_CASE_ID } from '../sandbox/cases/data.ts';
import { ERP_DEMO_COMPANY_ID } from '../sandbox/erp/data.ts';
import { INVOICING_CUSTOMER_WITHOUT_DUE_AMOUNT, INVOICING_SPLIT_YEAR } from '../sandbox/invoicing/data.ts';
import { SEARCH_SITES } from '../sandbox/search/data.ts';

/**
 * Known bugs: `<connector>.<tool>` → what is wrong. The listing tests of that connector expect
 * exactly these problems (the SDK Client test is `it.fails`); an entry that no longer reproduces
 * fails the suite, so remove it when the fix lands.
 */
const KNOWN_LISTING_BUGS: Readonly<Record<string, string>> = {};

/**
 * Known bugs in argument checking: `<connector>.<tool> <probe label>` → what is wrong. These outside
 * probes run in their own `it.fails` test (so the suite turns red when the bug is fixed), and an
 * entry that names no generated probe fails the suite.
 */
const KNOWN_ARGUMENT_BUGS: Readonly<Record<string, string>> = {};

/** `<connector>.<tool>.<argument>` → base value, only where the derivation from the schema cannot build one. */
const SCHEMA_BASE_VALUES: BaseValueOverrides = {};

/**
 * Base values the schema would accept derived, but the handler would refuse (it checks more than the schema can say).
 */
const HANDLER_BASE_VALUES: BaseValueOverrides = {
  'cases.graphql_query.query': '{ __typename }',
  'erp.query_entity.entity': 'customers',
};

/**
 * `<connector>.<argument>` → a value the sandbox's demo data holds, the base value of every tool that
 * requires the argument: its inside probes then reach real answers, whose results are checked
 * against the tool's output schema, rather than ending in "not found". An entry that no tool
 * requires fails the suite.
 */
const booksDemo = booksDataset().organizations.get(BOOKS_DEMO_ORG_ID)!;
const SANDBOX_VALUES: Readonly<Record<string, unknown>> = {
  'books.organizationId': BOOKS_DEMO_ORG_ID,
  'books.accountingYear': BOOKS_YEARS[1],
  'books.invoiceGuid': BOOKS_REMINDED_INVOICE_GUID,
  'books.contactGuid': booksDemo.contacts[0]!.ContactGuid,
  'books.creditNoteGuid': booksDemo.creditNotes[0]!.Guid,
  'books.tradeOfferGuid': booksDemo.tradeOffers[0]!.Guid,
  'books.fileGuid': booksDemo.files.find((f) => f.FileGuid !== BOOKS_BIG_FILE_GUID)!.FileGuid,
  'cases.id': DEMO_CASE_ID,
  'cases.caseId': DEMO_CASE_ID,
  'erp.companyId': ERP_DEMO_COMPANY_ID,
  'invoicing.customerNumber': INVOICING_CUSTOMER_WITHOUT_DUE_AMOUNT,
  'invoicing.year': INVOICING_SPLIT_YEAR,
  'ledger.entity': 'GLTransClient',
  'search.siteUrl': SEARCH_SITES[0]!.siteUrl,
};

/** SANDBOX_VALUES as `<connector>.<tool>.<argument>` overrides of every tool that requires the argument. */
const sandboxOverrides = (): BaseValueOverrides => {
  const out: Record<string, unknown> = {};
  for (const [entry, value] of Object.entries(SANDBOX_VALUES)) {
    const [key, arg] = entry.split('.');
    const connector = (Object.keys(registry) as ConnectorKey[]).find((k) => k === key);
    for (const tool of connector ? registry[connector].descriptor.tools : [])
      if (inputSchemaOf(tool).required?.includes(arg ?? '')) out[`${key}.${tool.name}.${arg}`] = value;
  }
  return out;
};

const BASE_VALUE_OVERRIDES: BaseValueOverrides = {
  ...sandboxOverrides(),
  ...SCHEMA_BASE_VALUES,
  ...HANDLER_BASE_VALUES,
};

/**
 * Inside probes that the schema accepts but the handler refuses before any upstream request
 * (`ctx.refuseArguments`): `<connector>.<tool> <probe label>` → why. They must end in the generic
 * text (or the one HANDLER_REFUSAL_TEXTS names), unmetered, with no upstream request (DECISIONS §8);
 * an entry naming no probe fails the suite.
 */
const HANDLER_REFUSALS: Readonly<Record<string, string>> = {
  'cases.graphql_query query: maxLength 65536': 'a string of 65,536 characters is not a GraphQL document',
  'ledger.list_recently_added_items since: pattern ^[0-9]{4}-[0-9]{2}-[0-9]{2}, sent "0000-00-00"':
    'matches the pattern, but is no calendar date',
  'erp.query_entity entity: minLength 1': 'letters only, but no allow-listed entity set is one character long',
  'erp.query_entity entity: maxLength 80': 'letters only, but no allow-listed entity set is 80 characters long',
  'books.list_invoices startDate: format date, sent "2025-01-15"':
    'one date of the pair alone (doc 001: startDate and endDate must be passed together)',
  'books.list_invoices endDate: format date, sent "2025-01-15"':
    'one date of the pair alone (doc 001: startDate and endDate must be passed together)',
  'books.list_sales startDate: format date, sent "2025-01-15"':
    'one date of the pair alone (doc 001: startDate and endDate must be passed together)',
  'books.list_sales endDate: format date, sent "2025-01-15"':
    'one date of the pair alone (doc 001: startDate and endDate must be passed together)',
  'books.list_credit_notes startDate: format date, sent "2025-01-15"':
    'one date of the pair alone (doc 001: startDate and endDate must be passed together)',
  'books.list_credit_notes endDate: format date, sent "2025-01-15"':
    'one date of the pair alone (doc 001: startDate and endDate must be passed together)',
};

/** Handler refusals whose spec text is the tool's own rather than the generic one (doc 000's ERP table). */
const HANDLER_REFUSAL_TEXTS: Readonly<Record<string, RegExp>> = {
  'erp.query_entity entity: minLength 1': /^Unknown entity '[A-Za-z]'\. Closest matches: /,
  'erp.query_entity entity: maxLength 80': /^Unknown entity '[A-Za-z]{80}'\. Closest matches: /,
  'books.list_invoices startDate: format date, sent "2025-01-15"': /^startDate and endDate must be passed together/,
  'books.list_invoices endDate: format date, sent "2025-01-15"': /^startDate and endDate must be passed together/,
  'books.list_sales startDate: format date, sent "2025-01-15"': /^startDate and endDate must be passed together/,
  'books.list_sales endDate: format date, sent "2025-01-15"': /^startDate and endDate must be passed together/,
  'books.list_credit_notes startDate: format date, sent "2025-01-15"': /^startDate and endDate must be passed together/,
  'books.list_credit_notes endDate: format date, sent "2025-01-15"': /^startDate and endDate must be passed together/,
};

/**
 * `<connector>.<code>`: connector error codes that a landed tool can return but that no other test
 * quotes or checks the text of yet. The suite fails when this list differs from what it finds.
 */
const UNTESTED_ERROR_CODES: readonly string[] = [];

const CONTRACT_FILES = ['contract.test.ts'];
const testDir = fileURLToPath(new URL('.', import.meta.url));
const connectorKeys = Object.keys(registry) as ConnectorKey[];

interface CatalogFile {
  readonly connectors: ReadonlyArray<{
    readonly key: string;
    readonly toolCount: number;
    readonly tools: ReadonlyArray<{ readonly name: string; readonly servedAs: string; readonly system: boolean }>;
  }>;
}

let env: ContractEnvironment;

interface FailureTenants {
  /** Subscribed to nothing. */
  readonly unsubscribed: Tenant;
  /** A user without seats in the suite tenant's account (which subscribes to everything). */
  readonly seatless: Tenant;
  /** Subscribed and seated, terms not accepted. */
  readonly termsPending: Tenant;
  /** Subscribed and seated, connected on `<id>-2` with a credential no upstream accepts. */
  readonly rejected: Tenant;
}
let failureTenantsMade: Promise<FailureTenants> | undefined;
/** The tenants of the failure paths, made once for every connector. */
function failureTenants(): Promise<FailureTenants> {
  failureTenantsMade ??= (async () => {
    const store = env.gateway.store;
    const unsubscribed = await createTenant(store, { subscribe: [] });
    const seatless = await createTenant(store, { accountId: env.tenant.account.id, seats: [] });
    const termsPending = await createTenant(store, { subscribe: connectorKeys, terms: false });
    const rejected = await createTenant(store, { subscribe: connectorKeys });
    for (const key of connectorKeys) {
      const { descriptor } = registry[key];
      if (!descriptor.tenantCredential) continue;
      const instanceId = `${env.instanceIds[key]}-2`;
      const sealed = env.gateway.app.context.vault.seal(
        JSON.stringify(REJECTED_CREDENTIALS[descriptor.credential]),
        rejected.account.id,
        instanceId,
      );
      await store.connections.putConnection({
        accountId: rejected.account.id,
        instanceId,
        connectorKey: key,
        ...sealed,
      });
    }
    await env.gateway.app.context.state.refresh();
    return { unsubscribed, seatless, termsPending, rejected };
  })();
  return failureTenantsMade;
}
const tally = { outside: 0, inside: 0, insideSkipped: 0, tools: 0, outputsChecked: 0 };
/**
 * `<connector>.<tool>` of every tool that answered at least one inside probe successfully (its result checked against
 * output_<tool>).
 */
const outputsChecked = new Set<string>();
/**
 * `<connector>.<tool>` → the text of its last failed inside probe (reported for the tools never answered successfully).
 */
const failedWith = new Map<string, string>();
const startedAt = performance.now();

// Starting every sandbox, the gateway and the store takes seconds; on a loaded machine more than the default minute.
beforeAll(async () => {
  env = await startContractEnvironment();
}, 180_000);

afterAll(async () => {
  if (env) {
    const seconds = ((performance.now() - startedAt) / 1000).toFixed(1);
    console.info(
      `contract suite: ${tally.tools} tools, ${tally.outside} outside + ${tally.inside} inside ` +
        `probes (${tally.insideSkipped} inside probes skipped on pending handlers); ` +
        `${env.counts.calls} tools/call, ${env.counts.lists} tools/list, ` +
        `${env.counts.usageReads} usage reads in ${seconds} s; ` +
        `${tally.outputsChecked} successful results of ` +
        `${outputsChecked.size} tools checked against their output schema`,
    );
    const unchecked = connectorKeys
      .flatMap((key) => registry[key].descriptor.tools.map((t) => `${key}.${t.name}`))
      .filter((t) => !outputsChecked.has(t));
    const why = unchecked.map((t) => `${t} (${failedWith.get(t) ?? 'no inside probe ran'})`);
    console.info(
      `contract suite: no successful result to check against the output schema: ${why.join('; ') || '(none)'}`,
    );
  }
  await env?.close();
});

const knownBugsOf = (key: string): Array<[tool: string, what: string]> =>
  Object.entries(KNOWN_LISTING_BUGS)
    .filter(([entry]) => entry.split('.')[0] === key)
    .map(([entry, what]) => [entry.split('.')[1] ?? '', what]);

describe('contract suite lists', () => {
  it('every known listing bug still reproduces in the descriptor', () => {
    const stale: string[] = [];
    for (const entry of Object.keys(KNOWN_LISTING_BUGS)) {
      const [key, toolName] = entry.split('.');
      const connector = connectorKeys.find((k) => k === key);
      const descriptor = connector ? registry[connector].descriptor : undefined;
      const tool = descriptor?.tools.find((t) => t.name === toolName);
      if (!descriptor || !tool) stale.push(`${entry}: no such tool`);
      else if (!descriptor.structuredContent || !tool.outputSchema || tool.outputSchema.type === 'object')
        stale.push(`${entry}: its published outputSchema root is type object now`);
    }
    expect(stale, 'remove these entries from KNOWN_LISTING_BUGS').toEqual([]);
  });

  it('every known argument bug names a probe the suite generates', () => {
    const generated = new Set<string>();
    for (const key of connectorKeys) {
      for (const tool of registry[key].descriptor.tools) {
        for (const p of toolProbes(tool, baseArguments(key, tool, BASE_VALUE_OVERRIDES).args))
          if (p.side === 'outside') generated.add(`${key}.${tool.name} ${p.label}`);
      }
    }
    expect(
      Object.keys(KNOWN_ARGUMENT_BUGS).filter((entry) => !generated.has(entry)),
      'remove these entries from KNOWN_ARGUMENT_BUGS',
    ).toEqual([]);
  });

  it('every handler refusal names an inside probe the suite generates', () => {
    const generated = new Set<string>();
    for (const key of connectorKeys) {
      for (const tool of registry[key].descriptor.tools) {
        const base = baseArguments(key, tool, BASE_VALUE_OVERRIDES);
        for (const p of toolProbes(tool, base.args))
          if (p.side === 'inside') generated.add(`${key}.${tool.name} ${p.label}`);
      }
    }
    expect(
      Object.keys(HANDLER_REFUSALS).filter((entry) => !generated.has(entry)),
      'remove these entries from HANDLER_REFUSALS',
    ).toEqual([]);
  });

  it('every sandbox value names an argument some tool of its connector requires', () => {
    const used = new Set(Object.keys(sandboxOverrides()).map((entry) => entry.replace(/\.[^.]+\./, '.')));
    expect(
      Object.keys(SANDBOX_VALUES).filter((entry) => !used.has(entry)),
      'remove these entries from SANDBOX_VALUES',
    ).toEqual([]);
  });

  it('every base value override is still needed', () => {
    expect(staleOverrides(SCHEMA_BASE_VALUES), 'remove these entries from SCHEMA_BASE_VALUES').toEqual([]);
    const unknown = staleOverrides(HANDLER_BASE_VALUES).filter(
      (entry) => !entry.endsWith('derivation works without it'),
    );
    expect(unknown, 'remove these entries from HANDLER_BASE_VALUES').toEqual([]);
  });

  it('every untested error code names a declared code of a connector', () => {
    const unknown = UNTESTED_ERROR_CODES.filter((entry) => {
      const [key, code] = entry.split('.');
      const connector = connectorKeys.find((k) => k === key);
      return !connector || !code || !(code in registry[connector].descriptor.errors);
    });
    expect(unknown).toEqual([]);
  });

  it('the catalog serves the same tools as the descriptors', () => {
    const catalog = JSON.parse(
      readFileSync(new URL('../generated/catalog.json', import.meta.url), 'utf8'),
    ) as CatalogFile;
    expect(catalog.connectors.map((c) => c.key).sort()).toEqual([...connectorKeys].sort());
    for (const c of catalog.connectors) {
      const descriptor = registry[c.key as ConnectorKey].descriptor;
      const served = c.tools.filter((t) => !t.system).map((t) => [t.name, t.servedAs]);
      expect(served.sort(), c.key).toEqual(
        descriptor.tools.map((t) => [t.name, `${descriptor.defaultId}__${t.name}`]).sort(),
      );
      expect(c.toolCount, c.key).toBe(descriptor.tools.length);
    }
  });
});

for (const key of connectorKeys) {
  const { descriptor, validators }: ConnectorModule = registry[key];
  const pending = pendingHandlers[key] ?? [];
  const generic = descriptor.errors.generic?.text;
  const knownBugs = knownBugsOf(key);

  describe(`${key} contract`, () => {
    it('every input schema keyword is one the probes understand', () => {
      expect(descriptor.tools.flatMap((t) => unsupportedKeywords(inputSchemaOf(t), t.name))).toEqual([]);
      expect(generic, 'the connector declares errors.generic').toBeTypeOf('string');
    });

    describe('tools/list', () => {
      for (const suffix of ['', '-2']) {
        const instance = `${descriptor.defaultId}${suffix}`;
        const expectedProblems = knownBugs
          .map(([tool]) => `${instance}__${tool}: outputSchema root is not type object`)
          .sort();
        const sdkTitle =
          `${instance}: the SDK Client lists every tool with its ` +
          'title, description, annotations and object schemas';
        const sdkTest = async () => {
          const client = await mcpClient(env.gateway.url, env.instanceIds[key] + suffix, env.tenant.token);
          try {
            env.counts.lists++;
            let tools: ListedTool[];
            try {
              tools = (await client.listTools()).tools as ListedTool[];
            } catch (error) {
              // Under it.fails only the known bug may fail this test: any other reason returns, which
              // it.fails reports as an unexpected pass.
              if (knownBugs.length > 0 && !String(error).includes('outputSchema')) return;
              throw error;
            }
            expect(listingProblems(descriptor, env.instanceIds[key] + suffix, tools)).toEqual([]);
          } finally {
            await client.close();
          }
        };
        if (knownBugs.length > 0)
          it.fails(`${sdkTitle} — KNOWN BUG ${knownBugs.map(([t, what]) => `${t}: ${what}`).join('; ')}`, sdkTest);
        else it(sdkTitle, sdkTest);

        const listTitle = `${instance}: the raw tools/list serves every tool as the descriptor declares`;
        it(`${listTitle}${expectedProblems.length ? ` (known: ${expectedProblems.length})` : ''}`, async () => {
          env.counts.lists++;
          const answer = await rpc(env.gateway.url, env.instanceIds[key] + suffix, env.tenant.token, {
            jsonrpc: '2.0',
            id: 1,
            method: 'tools/list',
          });
          expect(answer.status).toBe(200);
          const tools = (answer.json as { result: { tools: ListedTool[] } }).result.tools;
          expect(listingProblems(descriptor, env.instanceIds[key] + suffix, tools).sort()).toEqual(expectedProblems);
          // The published schemas are the descriptor's, their descriptions naming tools as this instance serves them.
          for (const tool of descriptor.tools) {
            const listed = tools.find((t) => t.name === `${env.instanceIds[key]}${suffix}__${tool.name}`);
            // A deprecated argument's description starts with its notice (tools-list.ts): compared without it.
            const published = withoutDeprecatedDescriptions(listed?.inputSchema, tool.deprecatedArguments);
            expect(published, tool.name).toEqual(
              withoutDeprecatedDescriptions(
                JSON.parse(renderToolReferences(JSON.stringify(tool.inputSchema), env.instanceIds[key] + suffix)),
                tool.deprecatedArguments,
              ),
            );
          }
        });
      }
    });

    describe('argument bounds', () => {
      for (const tool of descriptor.tools) {
        const base = baseArguments(key, tool, BASE_VALUE_OVERRIDES);
        const probes = toolProbes(tool, base.args);
        const knownBug = (p: Probe): string | undefined => KNOWN_ARGUMENT_BUGS[`${key}.${tool.name} ${p.label}`];
        const outside = probes.filter((p) => p.side === 'outside' && !knownBug(p));
        const knownBugProbes = probes.filter((p) => p.side === 'outside' && knownBug(p));
        const inside = probes.filter((p) => p.side === 'inside');
        const isPending = pending.includes(tool.name);
        tally.tools++;
        tally.outside += outside.length + knownBugProbes.length;
        if (isPending) tally.insideSkipped += inside.length;
        else tally.inside += inside.length;

        const refuseAll = async (batch: readonly Probe[]) => {
          const instance = env.instanceIds[key]!;
          const client = await env.client(instance);
          const upstream = env.upstreams[key]!;
          const before = await env.metered(instance, tool.name);
          const upstreamBefore = upstream.requests();
          env.counts.calls += batch.length;
          const results = await Promise.all(
            batch.map(async (p) => ({
              p,
              result: await client.callTool({ name: `${instance}__${tool.name}`, arguments: { ...p.args } }),
            })),
          );
          const wrong = results
            .filter(({ result }) => result.isError !== true || resultText(result) !== generic)
            .map(
              ({ p, result }) => `${p.label}: isError ${String(result.isError)}, ${resultText(result).slice(0, 160)}`,
            );
          expect(wrong, `outside probes not refused with "${generic}"`).toEqual([]);
          expect(await env.metered(instance, tool.name), 'outside probes are not metered').toEqual(before);
          expect(upstream.requests() - upstreamBefore, 'outside probes make no upstream request').toBe(0);
        };

        it(`${tool.name}: ${outside.length} probes just outside the bounds: generic error, unsent, free`, async () => {
          expect(
            base.underived,
            'required arguments without a derivable base value: add BASE_VALUE_OVERRIDES entries',
          ).toEqual([]);
          const disagreements = probeDisagreements(tool, validators[`input_${tool.name}`], probes).filter(
            (d) => !knownBugProbes.some((p) => d.startsWith(`${p.label} (`)),
          );
          expect(
            disagreements,
            "probes the gateway's argument check (runtime/pipeline/arguments.ts + " +
              'generated validator) judges differently from the published schema',
          ).toEqual([]);
          await refuseAll(outside);
        });

        for (const p of knownBugProbes)
          it.fails(`${tool.name}: KNOWN BUG ${p.label} — ${knownBug(p)}`, () => refuseAll([p]));

        if (isPending) {
          it.skip(`${tool.name}: ${inside.length} probes just inside the bounds (skipped: handler pending)`, () => {});
        } else {
          it(`${tool.name}: ${inside.length} probes just inside the bounds pass and are metered once`, async () => {
            const instance = env.instanceIds[key]!;
            const client = await env.client(instance);
            const wrong: string[] = [];
            let previous = await env.metered(instance, tool.name);
            const upstream = env.upstreams[key]!;
            const outputWrong: string[] = [];
            for (const p of inside) {
              env.counts.calls++;
              const upstreamBefore = upstream.requests();
              const result = await client.callTool({ name: `${instance}__${tool.name}`, arguments: { ...p.args } });
              if (result.isError === true) failedWith.set(`${key}.${tool.name}`, resultText(result).slice(0, 100));
              else {
                tally.outputsChecked++;
                outputsChecked.add(`${key}.${tool.name}`);
                const problem = outputProblem(descriptor, validators, tool, result);
                if (problem) outputWrong.push(`${p.label}: ${problem}`);
              }
              const now = await env.metered(instance, tool.name);
              const refusedByHandler = HANDLER_REFUSALS[`${key}.${tool.name} ${p.label}`] !== undefined;
              const expected = refusedByHandler ? 0 : 1;
              if (now.tool - previous.tool !== expected || now.total - previous.total !== expected)
                wrong.push(
                  `${p.label}: metered ${now.tool - previous.tool} (account ` +
                    `${now.total - previous.total}), ${resultText(result).slice(0, 160)}`,
                );
              const refusalText = HANDLER_REFUSAL_TEXTS[`${key}.${tool.name} ${p.label}`];
              const expectedText = refusalText ? refusalText.test(resultText(result)) : resultText(result) === generic;
              if (refusedByHandler && (!expectedText || upstream.requests() !== upstreamBefore))
                wrong.push(
                  `${p.label}: a handler refusal must be the generic text (or its ` +
                    'HANDLER_REFUSAL_TEXTS one) with no upstream request',
                );
              previous = now;
            }
            expect(wrong, 'inside probes not metered exactly once').toEqual([]);
            expect(
              outputWrong,
              `${key}.${tool.name}: successful results that do not match the tool's output schema`,
            ).toEqual([]);
          });
        }
      }
    });

    describe('failure results', () => {
      const tool =
        descriptor.tools.find((t) => !t.write && !pending.includes(t.name)) ??
        descriptor.tools.find((t) => !pending.includes(t.name));
      const id = descriptor.defaultId;
      const platformText = (code: PlatformErrorCode, params: Record<string, string>) =>
        formatText(platformDescriptor.errors[code]!.text, params);
      /** The text before a `{…_url}` placeholder: the refusal with its link starts with it. */
      const beforeLink = (code: PlatformErrorCode, params: Record<string, string>) => {
        const text = platformDescriptor.errors[code]!.text;
        return formatText(text.slice(0, text.search(/\{[a-z_]+_url\}/)), params);
      };
      it.skipIf(!tool)(
        'every refusal path answers one text block with its link: unknown tool, not connected, not subscribed, no ' +
          'seat, terms not accepted; unmetered, no upstream request',
        async () => {
          const upstream = env.upstreams[key]!;
          const upstreamBefore = upstream.requests();
          const meteredBefore = await env.metered(env.instanceIds[key]!, tool!.name);
          const args = baseArguments(key, tool!, BASE_VALUE_OVERRIDES).args;
          const call = async (instance: string, name: string, token?: string) => {
            env.counts.calls++;
            return (await env.client(instance, token)).callTool({ name, arguments: { ...args } });
          };
          const answers: Array<[string, unknown, (text: string) => boolean]> = [];
          answers.push([
            'unknown tool',
            await call(id, `${id}__no_such_tool`),
            (text) => text === platformText('unknown_tool', {}),
          ]);
          if (descriptor.tenantCredential) {
            // The suite's tenant is connected on `<id>` only.
            const prefix = beforeLink('not_connected', { instance_id: `${id}-2` });
            answers.push([
              'not connected',
              await call(`${id}-2`, `${id}-2__${tool!.name}`),
              (text) => text.startsWith(prefix) && /\/portal\/connect\/\S+$/.test(text),
            ]);
          }
          const strangers = await failureTenants();
          const unsubscribedPrefix = beforeLink('not_subscribed', { connector_id: id });
          answers.push([
            'not subscribed',
            await call(id, `${id}__${tool!.name}`, strangers.unsubscribed.token),
            (text) => text.startsWith(unsubscribedPrefix) && /\/portal\/purchase\/\S+$/.test(text),
          ]);
          const seatPrefix = beforeLink('no_seat', { connector_id: id });
          answers.push([
            'no seat',
            await call(id, `${id}__${tool!.name}`, strangers.seatless.token),
            (text) => text.startsWith(seatPrefix) && /\/portal\/team\/\S+$/.test(text),
          ]);
          if (descriptor.connectAccount) {
            const termsPrefix = beforeLink('connect_terms_required', { connector_id: id });
            answers.push([
              'terms not accepted',
              await call(id, 'connect_account', strangers.termsPending.token),
              (text) => text.startsWith(termsPrefix) && /\/portal\/terms\/\S+$/.test(text),
            ]);
          }
          const wrong = answers.flatMap(([what, result, textOk]) => {
            const problem =
              failureShapeProblem(result) ??
              ((result as { isError?: boolean }).isError !== true ? 'not a failure' : undefined);
            if (problem) return [`${what}: ${problem}`];
            return textOk(resultText(result)) ? [] : [`${what}: ${resultText(result).slice(0, 200)}`];
          });
          expect(wrong).toEqual([]);
          expect(upstream.requests() - upstreamBefore, 'refusals make no upstream request').toBe(0);
          expect(await env.metered(env.instanceIds[key]!, tool!.name), 'refusals are not metered').toEqual(
            meteredBefore,
          );
          // The tenants only ever refused (the seatless user's account is the suite's, read above).
          for (const t of [strangers.unsubscribed, strangers.termsPending])
            expect((await usageOf(env.gateway.url, t.token)).usage.totalCostUnits).toBe(0);
        },
      );

      it.skipIf(!tool || !descriptor.tenantCredential)(
        `a credential the upstream rejects (on ${id}-2) fails in one text block; a reconnect text carries the ` +
          `instruction and link of ${id}-2 in it`,
        async () => {
          const { rejected } = await failureTenants();
          env.counts.calls++;
          const client = await env.client(`${id}-2`, rejected.token);
          const result = await client.callTool({
            name: `${id}-2__${tool!.name}`,
            arguments: { ...baseArguments(key, tool!, BASE_VALUE_OVERRIDES).args },
          });
          expect(result.isError).toBe(true);
          expect(failureShapeProblem(result)).toBeUndefined();
          const text = resultText(result);
          const cut = text.lastIndexOf('\n\n');
          if (cut >= 0) {
            const reconnect = platformDescriptor.instructions.reconnect!;
            const lead = formatText(reconnect.slice(0, reconnect.indexOf('{connect_url}')), {
              connector_title: descriptor.title,
              instance_id: `${id}-2`,
            });
            expect(text.slice(cut + 2).startsWith(lead), text).toBe(true);
            expect(text).toMatch(/\/portal\/connect\/\S+$/);
          }
        },
      );
    });

    describe('error codes', () => {
      const codes = landedErrorCodes(descriptor, pending);
      const excepted = UNTESTED_ERROR_CODES.filter((e) => e.startsWith(`${key}.`))
        .map((e) => e.slice(key.length + 1))
        .sort();
      it(`all ${codes.length} error codes are tested${excepted.length ? ` (not: ${excepted.join(', ')})` : ''}`, () => {
        const files = testFiles(testDir, CONTRACT_FILES);
        const untested = codes.filter((code) => !files.some((f) => mentionsErrorCode(descriptor, code, f.text)));
        expect(untested, 'UNTESTED_ERROR_CODES must list exactly the codes no test reaches').toEqual(excepted);
      });
    });
  });
}

describe('contract suite failure results', () => {
  it('every failure result the suite received (probes, refusals, upstream failures) was one text block', () => {
    expect(env.failures.seen, 'the suite drove failures').toBeGreaterThan(0);
    expect(env.failures.malformed).toEqual([]);
  });
});
