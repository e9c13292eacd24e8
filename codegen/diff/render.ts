// The three outputs of catalog:diff: text for a terminal (colour on a TTY unless NO_COLOR),
// Markdown for a pull-request comment, JSON for tools.
import { ACKNOWLEDGEMENTS_FILE, type Verdict } from './acknowledge.ts';
import { SEVERITIES, type CatalogChange, type Severity } from './changes.ts';

export interface Labels {
  readonly base: string;
  readonly head: string;
}

const HEADINGS: Record<Severity, string> = { breaking: 'BREAKING', dangerous: 'DANGEROUS', info: 'INFO' };
const COLOURS: Record<Severity, string> = { breaking: '\x1b[31m', dangerous: '\x1b[33m', info: '\x1b[36m' };
const DIM = '\x1b[2m';
const BOLD = '\x1b[1m';
const RESET = '\x1b[0m';

/** Colour only on a terminal, and never when NO_COLOR is set to anything non-empty (no-color.org). */
export function useColour(stream: { isTTY?: boolean }, env: NodeJS.ProcessEnv): boolean {
  return stream.isTTY === true && !env.NO_COLOR;
}

function counts(v: Verdict) {
  const of = (s: Severity) => v.changes.filter((c) => c.severity === s).length;
  const acknowledged = v.changes.filter((c) => c.severity === 'breaking' && c.acknowledged !== undefined).length;
  return { breaking: of('breaking'), acknowledged, dangerous: of('dangerous'), info: of('info') };
}

/** Texts longer than this are shown as a word diff (the changed words between the common ends). */
const LONG_TEXT = 120;

/** The old and the new text of a text change, or a word diff `… [-old-] {+new+} …` for long ones. */
export function textChange(before: unknown, after: unknown): string | undefined {
  if (typeof before !== 'string' && typeof after !== 'string') return undefined;
  const a = typeof before === 'string' ? before : '';
  const b = typeof after === 'string' ? after : '';
  if (a.length <= LONG_TEXT && b.length <= LONG_TEXT)
    return `before: “${typeof before === 'string' ? a : 'none'}” → after: “${typeof after === 'string' ? b : 'none'}”`;
  const wa = a.split(/(\s+)/);
  const wb = b.split(/(\s+)/);
  let head = 0;
  while (head < wa.length && head < wb.length && wa[head] === wb[head]) head++;
  let tail = 0;
  while (tail < wa.length - head && tail < wb.length - head && wa[wa.length - 1 - tail] === wb[wb.length - 1 - tail])
    tail++;
  const removed = wa
    .slice(head, wa.length - tail)
    .join('')
    .trim();
  const added = wb
    .slice(head, wb.length - tail)
    .join('')
    .trim();
  const lead = head > 0 ? '… ' : '';
  const trail = tail > 0 ? ' …' : '';
  const change = [removed ? `[-${removed}-]` : '', added ? `{+${added}+}` : ''].filter(Boolean).join(' ');
  return `word diff: ${lead}${change}${trail}`;
}

function notes(c: CatalogChange): string[] {
  const out: string[] = [];
  if (c.modelBehaviour || c.code.startsWith('error-') || c.code.startsWith('tool-reference-')) {
    const text = textChange(c.before, c.after);
    if (text) out.push(text);
  }
  if (c.calls !== undefined) out.push(`${c.calls} call${c.calls === 1 ? '' : 's'} in the usage period`);
  if (c.tools?.length) out.push(`returned by ${c.tools.join(', ')}`);
  if (c.stability) out.push(`${c.stability}: ${c.classSeverity} → ${c.severity}`);
  if (c.modelBehaviour) out.push('changes model behaviour');
  return out;
}

function summaryLine(v: Verdict): string {
  const n = counts(v);
  return `${n.breaking} breaking (${n.acknowledged} acknowledged), ${n.dangerous} dangerous, ${n.info} info`;
}

export function renderText(v: Verdict, labels: Labels, colour: boolean): string {
  const paint = (code: string, text: string) => (colour ? `${code}${text}${RESET}` : text);
  const lines = [paint(BOLD, `Catalog diff: ${labels.base} → ${labels.head}`)];
  if (v.changes.length === 0) lines.push('No changes to the tool surface.');
  for (const severity of SEVERITIES) {
    const list = v.changes.filter((c) => c.severity === severity);
    if (!list.length) continue;
    lines.push('', paint(COLOURS[severity] + BOLD, `${HEADINGS[severity]} (${list.length})`));
    for (const c of list) {
      const extra = notes(c);
      const ack = c.acknowledged !== undefined ? paint(DIM, ` — acknowledged: ${c.acknowledged}`) : '';
      lines.push(
        `  ${paint(COLOURS[severity], c.where)}: ${c.message}${extra.length ? ` (${extra.join('; ')})` : ''}${ack}`,
      );
      lines.push(`    ${paint(DIM, c.id)}`);
    }
  }
  if (v.unused.length) {
    lines.push('', paint(DIM, `Acknowledgements that match no change (remove them once their change is on main):`));
    for (const a of v.unused) lines.push(paint(DIM, `  ${a.change}`));
  }
  lines.push('', summaryLine(v));
  if (!v.ok) {
    lines.push(
      paint(
        COLOURS.breaking,
        `${v.unacknowledged.length} breaking change(s) not acknowledged. If they are intended, add ` +
          `each id with a reason to ${ACKNOWLEDGEMENTS_FILE} (docs/catalog-diff.md).`,
      ),
    );
  }
  return `${lines.join('\n')}\n`;
}

const cell = (text: string) => text.replace(/\|/g, '\\|').replace(/\s*\n\s*/g, ' ');

export function renderMarkdown(v: Verdict, labels: Labels): string {
  const n = counts(v);
  const lines = [`### Catalog diff: ${labels.base} → ${labels.head}`, ''];
  if (v.changes.length === 0) return `${lines.join('\n')}No changes to the tool surface.\n`;
  lines.push(
    v.ok
      ? '✅ No unacknowledged breaking change.'
      : `❌ **${v.unacknowledged.length} breaking change(s) not acknowledged.**`,
    '',
  );
  lines.push(
    '| Breaking | Acknowledged | Dangerous | Info |',
    '|---|---|---|---|',
    `| ${n.breaking} | ${n.acknowledged} | ${n.dangerous} | ${n.info} |`,
    '',
  );
  for (const severity of SEVERITIES) {
    const list = v.changes.filter((c) => c.severity === severity);
    if (!list.length) continue;
    const body = ['| Where | Change | Note | Id |', '|---|---|---|---|'];
    for (const c of list) {
      const note = [...notes(c), ...(c.acknowledged !== undefined ? [`acknowledged: ${c.acknowledged}`] : [])].join(
        '; ',
      );
      body.push(`| \`${c.where}\` | ${cell(c.message)} | ${cell(note)} | \`${c.id}\` |`);
    }
    // Information is folded away; breaking and dangerous changes are open.
    if (severity === 'info')
      lines.push(
        `<details><summary>${HEADINGS[severity]} (${list.length})</summary>`,
        '',
        ...body,
        '',
        '</details>',
        '',
      );
    else lines.push(`#### ${HEADINGS[severity]} (${list.length})`, '', ...body, '');
  }
  if (!v.ok) lines.push(`To accept a breaking change, add its id with a reason to \`${ACKNOWLEDGEMENTS_FILE}\`.`, '');
  return `${lines.join('\n').trimEnd()}\n`;
}

export function renderJson(v: Verdict, labels: Labels): string {
  const report = {
    base: labels.base,
    head: labels.head,
    ok: v.ok,
    summary: counts(v),
    changes: v.changes,
    unusedAcknowledgements: v.unused,
  };
  return `${JSON.stringify(report, null, 2)}\n`;
}

/** GitHub workflow command escaping: data escapes %, CR, LF; a property also `:` and `,`. */
const ghData = (text: string) => text.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
const ghProperty = (text: string) => ghData(text).replace(/:/g, '%3A').replace(/,/g, '%2C');

/**
 * GitHub Actions annotations on the spec lines: `::error` for a breaking change not acknowledged
 * (and a dangerous one when `failOn` is dangerous), `::warning` for a dangerous one, `::notice` for
 * an acknowledged breaking one; information is not annotated. A change no spec line holds is
 * annotated without a file. Ends with the summary line.
 */
export function renderGithub(
  v: Verdict,
  locate: (where: string) => { file: string; line: number } | undefined,
  failOn: 'breaking' | 'dangerous' = 'breaking',
): string {
  const lines: string[] = [];
  for (const c of v.changes) {
    if (c.severity === 'info') continue;
    const level =
      c.severity === 'breaking'
        ? c.acknowledged === undefined
          ? 'error'
          : 'notice'
        : failOn === 'dangerous'
          ? 'error'
          : 'warning';
    const at = locate(c.where);
    const props = [
      ...(at ? [`file=${ghProperty(at.file)}`, `line=${at.line}`] : []),
      `title=${ghProperty(`${c.severity}: ${c.code}`)}`,
    ];
    const ack = c.acknowledged !== undefined ? ` (acknowledged: ${c.acknowledged})` : '';
    lines.push(`::${level} ${props.join(',')}::${ghData(`${c.where}: ${c.message}${ack} [${c.id}]`)}`);
  }
  lines.push(summaryLine(v));
  return `${lines.join('\n')}\n`;
}
