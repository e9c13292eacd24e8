// The pipeline: load (with positions) → format schema + lints (all diagnostics at once) → IR →
// one emitter per artifact. Returns file contents; main.ts decides whether to write or compare.
import { lintDeprecations, lintSunsets } from './deprecations.ts';
import { diagnostic, sortDiagnostics, type Diagnostic } from './diagnostics.ts';
import { emitCatalogJson, emitCatalogMarkdown } from './emit/catalog.ts';
import { emitContract } from './emit/contract.ts';
import { emitDescriptor, emitPlatform } from './emit/descriptor.ts';
import { emitHandlerMap, emitRegistry } from './emit/registry.ts';
import { emitTypes } from './emit/types.ts';
import { emitValidators } from './emit/validators.ts';
import { buildConnector, buildPlatform, type SpecIR } from './ir.ts';
import { listSpecFiles, loadSpec, type SpecSource } from './load.ts';
import { lintReferences, systemToolScope } from './references.ts';
import { isObject } from './schema.ts';
import { lintToolsets } from './toolsets.ts';
import { checkFormat, lintConnectorIds, lintSpec } from './validate.ts';

export interface CheckResult {
  readonly diagnostics: Diagnostic[];
  readonly ir?: SpecIR;
}

export const PLATFORM_FILE = 'platform.yaml';

export interface CheckOptions {
  /**
   * YYYY-MM-DD (UTC): also fail on deprecations past their sunset (SPEC045). Only `codegen --lint` sets it, so
   * generating and the drift check never depend on the date.
   */
  readonly today?: string;
}

export function checkSpecs(specDir: string, root: string, options: CheckOptions = {}): CheckResult {
  const diagnostics: Diagnostic[] = [];
  const sources: SpecSource[] = [];
  for (const path of listSpecFiles(specDir)) {
    const { source, diagnostics: syntax } = loadSpec(path, root);
    diagnostics.push(...syntax);
    if (syntax.length === 0) {
      diagnostics.push(...checkFormat(source));
      sources.push(source);
    }
  }
  const platformSource = sources.find((s) => s.file.endsWith(`/${PLATFORM_FILE}`));
  if (!platformSource) {
    const parsed = diagnostics.some((d) => d.file.endsWith(`/${PLATFORM_FILE}`));
    if (!parsed)
      diagnostics.push(
        diagnostic(
          'SPEC031',
          `${specDir.replace(`${root}/`, '')}/${PLATFORM_FILE}`,
          { line: 1, col: 1 },
          `${PLATFORM_FILE} is missing`,
        ),
      );
  }
  const platformData =
    platformSource && isObject(platformSource.data) && isObject(platformSource.data.platform)
      ? platformSource.data.platform
      : undefined;
  const platformErrors = new Set(isObject(platformData?.errors) ? Object.keys(platformData.errors) : []);
  const platformLimitKinds = new Set(isObject(platformData?.limitKinds) ? Object.keys(platformData.limitKinds) : []);
  const systemTools = systemToolScope(platformData);
  for (const source of sources)
    diagnostics.push(
      ...lintSpec(source, platformErrors, platformLimitKinds),
      ...lintReferences(source, systemTools),
      ...lintToolsets(source),
      ...lintDeprecations(source),
      ...(options.today ? lintSunsets(source, options.today) : []),
    );
  diagnostics.push(...lintConnectorIds(sources));

  if (diagnostics.some((d) => d.severity === 'error') || !platformSource)
    return { diagnostics: sortDiagnostics(diagnostics) };

  const platform = buildPlatform(platformSource);
  const connectorSources = sources.filter((s) => s !== platformSource);
  const connectors = connectorSources.map((s) => buildConnector(s, platform)).sort((a, b) => (a.key < b.key ? -1 : 1));
  return { diagnostics: sortDiagnostics(diagnostics), ir: { platform, connectors } };
}

export interface EmitResult {
  /** Every file under generated/, keyed by path relative to generated/, sorted. */
  readonly files: Map<string, string>;
  /** Problems only the emitters can see (a schema the strict validator compiler rejects). */
  readonly diagnostics: Diagnostic[];
}

export async function emitAll(ir: SpecIR): Promise<EmitResult> {
  const files = new Map<string, string>();
  const diagnostics: Diagnostic[] = [];
  const platformValidators = emitValidators({ tools: ir.platform.systemTools, source: ir.platform.source });
  diagnostics.push(...platformValidators.diagnostics);
  files.set('platform/descriptor.ts', emitPlatform(ir.platform));
  files.set('platform/validators.js', platformValidators.js);
  files.set('platform/validators.d.ts', platformValidators.dts);
  const types = await Promise.all(ir.connectors.map((c) => emitTypes(c)));
  ir.connectors.forEach((c, i) => {
    const validators = emitValidators(c);
    diagnostics.push(...validators.diagnostics);
    files.set(`${c.key}/types.ts`, types[i]!);
    files.set(`${c.key}/validators.js`, validators.js);
    files.set(`${c.key}/validators.d.ts`, validators.dts);
    files.set(`${c.key}/descriptor.ts`, emitDescriptor(c));
    files.set(`${c.key}/contract.ts`, emitContract(c));
    files.set(`${c.key}/handlers.ts`, emitHandlerMap(c));
  });
  files.set('registry.ts', emitRegistry(ir));
  files.set('catalog.json', emitCatalogJson(ir));
  files.set('CATALOG.md', emitCatalogMarkdown(ir));
  return {
    files: new Map([...files.entries()].sort(([a], [b]) => (a < b ? -1 : 1))),
    diagnostics: sortDiagnostics(diagnostics),
  };
}

/** Check, then emit: all diagnostics of both stages, and the files when there is no error. */
export async function runPipeline(
  specDir: string,
  root: string,
  options: CheckOptions = {},
): Promise<{ diagnostics: Diagnostic[]; ir?: SpecIR; files?: Map<string, string> }> {
  const checked = checkSpecs(specDir, root, options);
  if (!checked.ir) return { diagnostics: checked.diagnostics };
  const emitted = await emitAll(checked.ir);
  const diagnostics = sortDiagnostics([...checked.diagnostics, ...emitted.diagnostics]);
  if (diagnostics.some((d) => d.severity === 'error')) return { diagnostics };
  return { diagnostics, ir: checked.ir, files: emitted.files };
}
