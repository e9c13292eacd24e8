// `npm run codegen` regenerates generated/ and adds handler stubs; `--check` fails when generated/
// or handlers/ is behind the specs; `--lint` only reports spec diagnostics.
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isCalendarDay, utcDay } from './deprecations.ts';
import { formatDiagnostic } from './diagnostics.ts';
import { planStubs } from './emit/stubs.ts';
import { fixReferences } from './fix-references.ts';
import { runPipeline } from './generate.ts';
import { REGENERATE_COMMAND } from './printer.ts';

interface Options {
  readonly mode: 'write' | 'check' | 'lint' | 'fix-references';
  readonly root: string;
  readonly specDir: string;
  readonly outDir: string;
  readonly handlersDir: string;
  readonly stubs: boolean;
  /** `--lint` only: the day sunsets are compared with (YYYY-MM-DD, UTC; `--today`, else the clock's). */
  readonly today?: string;
}

function parseArgs(argv: readonly string[]): Options {
  const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
  const value = (flag: string) => {
    const i = argv.indexOf(flag);
    return i >= 0 ? argv[i + 1] : undefined;
  };
  const base = value('--root') ? resolve(value('--root')!) : root;
  return {
    mode: argv.includes('--check')
      ? 'check'
      : argv.includes('--lint')
        ? 'lint'
        : argv.includes('--fix-references')
          ? 'fix-references'
          : 'write',
    root: base,
    specDir: resolve(base, value('--specs') ?? 'specs'),
    outDir: resolve(base, value('--out') ?? 'generated'),
    handlersDir: resolve(base, value('--handlers') ?? 'handlers'),
    stubs: !argv.includes('--no-stubs'),
    ...(value('--today') ? { today: value('--today') } : {}),
  };
}

function listFiles(dir: string, base = dir): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = join(dir, entry.name);
    return entry.isDirectory() ? listFiles(full, base) : [relative(base, full).split('\\').join('/')];
  });
}

export const HELP = `Usage: node codegen/main.ts [--check | --lint] [options]
       npm run codegen | npm run codegen:check | npm run codegen:lint

  (no mode)          regenerate generated/ from specs/ and write stubs for new tools
  --check            fail when generated/ or handlers/ is behind the specs (CI)
  --lint             only report spec diagnostics
  --fix-references   rewrite tools named in spec texts without a reference (SPEC039) as
                     {{tool:<name>}}, in place; then run codegen
  --root <dir>       project root (default: this checkout)
  --specs <dir>      spec directory (default: <root>/specs)
  --out <dir>        output directory (default: <root>/generated)
  --handlers <dir>   handler directory (default: <root>/handlers)
  --no-stubs         write no handler stubs
  --today <day>      with --lint: the day (YYYY-MM-DD) deprecation sunsets are checked
                     against (SPEC045; default: today in UTC)
  --help             print this help`;

export async function run(
  argv: readonly string[],
  log: (line: string) => void = console.log,
  errorLog: (line: string) => void = console.error,
): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h')) {
    log(HELP);
    return 0;
  }
  const options = parseArgs(argv);
  if (options.mode === 'fix-references') {
    const reports = fixReferences(options.specDir, options.root);
    for (const r of reports)
      (r.failed ? errorLog : log)(
        r.failed
          ? `${r.file}: not changed, ${r.failed}`
          : `${r.file}: ${r.count} tool name(s) written as {{tool:<name>}}`,
      );
    if (reports.length === 0) log('no tool named without a reference');
    return reports.some((r) => r.failed) ? 1 : 0;
  }
  if (options.today !== undefined && !isCalendarDay(options.today)) {
    errorLog(`--today takes a day as YYYY-MM-DD, got "${options.today}"`);
    return 2;
  }
  const started = performance.now();
  const today = options.mode === 'lint' ? (options.today ?? utcDay()) : undefined;
  const { diagnostics, ir, files } = await runPipeline(options.specDir, options.root, today ? { today } : {});
  for (const d of diagnostics) (d.severity === 'error' ? errorLog : log)(formatDiagnostic(d));
  const errors = diagnostics.filter((d) => d.severity === 'error').length;
  if (errors > 0 || !ir || !files) {
    errorLog(`\n${errors} error(s) in specs; nothing was generated.`);
    return 1;
  }
  if (options.mode === 'lint') {
    log(
      `specs OK: ${ir.connectors.length} connectors, ` +
        `${ir.connectors.reduce((n, c) => n + c.tools.length, 0)} tools (${diagnostics.length} warning(s))`,
    );
    return 0;
  }
  const outRel = relative(options.root, options.outDir) || '.';
  const existing = listFiles(options.outDir).filter((f) => f !== '.gitkeep');
  const stale = existing.filter((f) => !files.has(f));
  const changed = [...files].filter(([path, content]) => {
    const full = join(options.outDir, path);
    return !existsSync(full) || readFileSync(full, 'utf8') !== content;
  });
  const stubs = options.stubs ? planStubs(ir, options.handlersDir, relative(options.root, options.handlersDir)) : [];

  if (options.mode === 'check') {
    if (changed.length === 0 && stale.length === 0 && stubs.length === 0) {
      log(
        `codegen check OK: ${files.size} files in ${outRel}/ match the ` +
          `specs (${Math.round(performance.now() - started)} ms)`,
      );
      return 0;
    }
    errorLog(`${outRel}/ is out of date with specs/:`);
    for (const [path] of changed)
      errorLog(`  ${existsSync(join(options.outDir, path)) ? 'differs' : 'missing'}: ${outRel}/${path}`);
    for (const path of stale) errorLog(`  not generated by any spec: ${outRel}/${path}`);
    for (const change of stubs) errorLog(`  handler stub needed: ${change.path} (${change.reason})`);
    errorLog(`Run \`${REGENERATE_COMMAND}\` and commit the result.`);
    return 1;
  }

  for (const [path, content] of changed) {
    const full = join(options.outDir, path);
    mkdirSync(dirname(full), { recursive: true });
    writeFileSync(full, content);
  }
  for (const path of stale) rmSync(join(options.outDir, path));
  for (const change of stubs) {
    const full = join(options.root, change.path);
    mkdirSync(dirname(full), { recursive: true });
    writeFileSync(full, change.content);
    log(`  ${change.path}: ${change.reason}`);
  }
  log(
    `codegen: ${files.size} files (${changed.length} written, ${stale.length} removed), ${stubs.length} ` +
      `handler file(s) added or updated, in ${Math.round(performance.now() - started)} ms`,
  );
  return 0;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  run(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (error: unknown) => {
      console.error(`codegen failed: ${error instanceof Error ? error.message : String(error)}`);
      process.exit(2);
    },
  );
}
