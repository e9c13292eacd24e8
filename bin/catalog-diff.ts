// `npm run catalog:diff -- [BASE] [HEAD]`: classifies every change of the tool catalog between two
// catalogs as breaking, dangerous or information, and fails on breaking changes no reviewer has
// acknowledged. docs/catalog-diff.md has the classes and the acknowledgement file.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  ACKNOWLEDGEMENTS_FILE,
  AcknowledgementError,
  applyAcknowledgements,
  parseAcknowledgements,
  parseRules,
} from '../codegen/diff/acknowledge.ts';
import { parseUsageExport, periodOf, UsageExportError, withUsage } from '../codegen/diff/usage.ts';
import { diffCatalogs } from '../codegen/diff/classify.ts';
import { isCalendarDay } from '../codegen/deprecations.ts';
import { specLocator } from '../codegen/diff/locations.ts';
import { renderGithub, renderJson, renderMarkdown, renderText, useColour } from '../codegen/diff/render.ts';
import { loadArgument, loadWorkingTree, mergeBase, SourceError, type Loaded } from '../codegen/diff/sources.ts';

export const HELP = `Usage: npm run catalog:diff -- [BASE] [HEAD] [options]

  BASE, HEAD         a git ref (its committed generated/catalog.json) or a catalog file;
                     BASE defaults to the merge base of HEAD with main (origin/main, else main),
                     HEAD to the working tree (its specs, generated in memory)
  --format <f>       text (default; colour on a terminal unless NO_COLOR), markdown, json,
                     github (::error/::warning annotations on the spec lines)
  --fail-on <s>      breaking (default: fail on an unacknowledged breaking change) or
                     dangerous (fail on a dangerous change too)
  --ack <file>       acknowledgements (default: ${ACKNOWLEDGEMENTS_FILE} in the checkout)
  --usage <file>     a usage export (/api/usage, npm run admin -- usage <account> [--json]; one
                     record, a JSON array or one per line): each change shows its tool's
                     calls, most called first; the rule \`uncalled\` acknowledges breaking
                     changes to tools nobody called
  --today <day>      the day (YYYY-MM-DD, UTC) a deprecated item's removal is judged against: after
                     its sunset it is acknowledged (default: today)
  --ci               a no-op when there is no merge base with main, or HEAD is the merge base
  --root <dir>       checkout to read (default: this one)
  --help             print this help

Exit status: 0 nothing to fail on, 1 an unacknowledged breaking change (or with --fail-on dangerous
a dangerous one), 2 the diff could not run.`;

export interface Io {
  readonly out: (text: string) => void;
  readonly err: (text: string) => void;
  readonly colour: boolean;
}

interface Options {
  readonly positional: string[];
  readonly format: 'text' | 'markdown' | 'json' | 'github';
  readonly failOn: 'breaking' | 'dangerous';
  readonly ack?: string;
  readonly ci: boolean;
  readonly root: string;
  readonly today?: string;
  readonly usage?: string;
}

function parseArgs(argv: readonly string[]): Options | string {
  const positional: string[] = [];
  let format: Options['format'] = 'text';
  let failOn: Options['failOn'] = 'breaking';
  let ack: string | undefined;
  let ci = false;
  let today: string | undefined;
  let usage: string | undefined;
  let root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const value = () => {
      const v = argv[++i];
      if (v === undefined) throw new Error(`${arg} needs a value`);
      return v;
    };
    try {
      if (arg === '--format') {
        const f = value();
        if (f !== 'text' && f !== 'markdown' && f !== 'json' && f !== 'github')
          return `unknown format \`${f}\` (text, markdown, json, github)`;
        format = f;
      } else if (arg === '--fail-on') {
        const f = value();
        if (f !== 'breaking' && f !== 'dangerous') return `unknown --fail-on \`${f}\` (breaking, dangerous)`;
        failOn = f;
      } else if (arg === '--ack') ack = value();
      else if (arg === '--root') root = resolve(value());
      else if (arg === '--ci') ci = true;
      else if (arg === '--usage') usage = value();
      else if (arg === '--today') {
        today = value();
        if (!isCalendarDay(today)) return `--today takes a day as YYYY-MM-DD, got \`${today}\``;
      } else if (arg.startsWith('-')) return `unknown option ${arg}`;
      else positional.push(arg);
    } catch (error) {
      return (error as Error).message;
    }
  }
  if (positional.length > 2) return 'at most two catalogs: BASE and HEAD';
  return {
    positional,
    format,
    failOn,
    ...(ack ? { ack } : {}),
    ci,
    root,
    ...(today ? { today } : {}),
    ...(usage ? { usage } : {}),
  };
}

export async function run(argv: readonly string[], io: Io): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h')) {
    io.out(`${HELP}\n`);
    return 0;
  }
  const options = parseArgs(argv);
  if (typeof options === 'string') {
    io.err(`catalog:diff: ${options}\n${HELP}\n`);
    return 2;
  }
  const { root, positional } = options;
  try {
    let base: Loaded;
    if (positional[0] !== undefined) base = loadArgument(root, positional[0]);
    else {
      const found = mergeBase(root);
      if (!found) {
        if (options.ci) {
          io.out('catalog:diff: no merge base with main (no main branch or no common history): nothing to compare.\n');
          return 0;
        }
        io.err('catalog:diff: no merge base with main (origin/main or main): name BASE.\n');
        return 2;
      }
      if (options.ci && found.commit === found.head && positional[1] === undefined) {
        io.out(
          `catalog:diff: HEAD is the merge base with ${found.main} ` +
            `(${found.commit.slice(0, 10)}): nothing to compare.\n`,
        );
        return 0;
      }
      base = {
        ...loadArgument(root, found.commit),
        label: `merge base with ${found.main} (${found.commit.slice(0, 10)})`,
      };
    }
    const head = positional[1] !== undefined ? loadArgument(root, positional[1]) : await loadWorkingTree(root);
    const ackFile = options.ack ?? resolve(root, ACKNOWLEDGEMENTS_FILE);
    if (options.ack && !existsSync(ackFile)) throw new SourceError(`${ackFile} does not exist`);
    const ackText = existsSync(ackFile) ? readFileSync(ackFile, 'utf8') : '';
    const acks = parseAcknowledgements(ackText, ackFile);
    let changes = diffCatalogs(base.catalog, head.catalog, options.today);
    let usageLabel = '';
    if (options.usage) {
      if (!existsSync(options.usage)) throw new SourceError(`${options.usage} does not exist`);
      const usage = parseUsageExport(readFileSync(options.usage, 'utf8'), options.usage);
      changes = withUsage(changes, usage, base.catalog, head.catalog, parseRules(ackText, ackFile));
      usageLabel = ` (calls ${periodOf(usage)}, ${usage.records} usage record(s))`;
    }
    const verdict = applyAcknowledgements(changes, acks);
    const labels = { base: base.label, head: `${head.label}${usageLabel}` };
    io.out(
      options.format === 'json'
        ? renderJson(verdict, labels)
        : options.format === 'markdown'
          ? renderMarkdown(verdict, labels)
          : options.format === 'github'
            ? renderGithub(verdict, specLocator(root), options.failOn)
            : renderText(verdict, labels, io.colour),
    );
    const dangerous = options.failOn === 'dangerous' && verdict.changes.some((c) => c.severity === 'dangerous');
    if (dangerous && options.format !== 'github')
      io.err('catalog:diff: --fail-on dangerous: the diff has dangerous changes.\n');
    return verdict.ok && !dangerous ? 0 : 1;
  } catch (error) {
    if (error instanceof SourceError || error instanceof AcknowledgementError || error instanceof UsageExportError) {
      io.err(`catalog:diff: ${error.message}\n`);
      return 2;
    }
    throw error;
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  run(process.argv.slice(2), {
    out: (t) => process.stdout.write(t),
    err: (t) => process.stderr.write(t),
    colour: useColour(process.stdout, process.env),
  }).then(
    (code) => {
      process.exitCode = code;
    },
    (error: unknown) => {
      console.error(`catalog:diff failed: ${error instanceof Error ? error.message : String(error)}`);
      process.exitCode = 2;
    },
  );
}
