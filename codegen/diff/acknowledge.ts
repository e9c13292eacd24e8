// Acknowledgements: a reviewer accepts one breaking change, by its id, with a reason. The check
// fails on breaking changes no acknowledgement names; an acknowledgement naming no change is
// reported (stale once its change is on main) but never fails the check.
import { parseDocument } from 'yaml';
import type { CatalogChange } from './changes.ts';

export const ACKNOWLEDGEMENTS_FILE = 'catalog-acknowledgements.yaml';

export interface Acknowledgement {
  readonly change: string;
  readonly reason: string;
}

export class AcknowledgementError extends Error {}

/** Parses the file's text; a malformed file is an error, not an empty list (it would silently acknowledge nothing). */
export function parseAcknowledgements(text: string, file = ACKNOWLEDGEMENTS_FILE): Acknowledgement[] {
  const doc = parseDocument(text, { uniqueKeys: true });
  if (doc.errors.length) throw new AcknowledgementError(`${file}: ${doc.errors[0]!.message.split('\n')[0]}`);
  const data = doc.toJS() as unknown;
  if (data === null || data === undefined) return [];
  if (typeof data !== 'object' || Array.isArray(data))
    throw new AcknowledgementError(`${file}: expected a mapping with \`acknowledged\``);
  const extra = Object.keys(data).filter((k) => k !== 'acknowledged' && k !== 'rules');
  if (extra.length)
    throw new AcknowledgementError(`${file}: unknown key \`${extra[0]}\` (only \`acknowledged\` and \`rules\`)`);
  const list = (data as Record<string, unknown>).acknowledged;
  if (list === undefined || list === null) return [];
  if (!Array.isArray(list))
    throw new AcknowledgementError(`${file}: \`acknowledged\` must be a list of { change, reason }`);
  return list.map((entry, i) => {
    const e = typeof entry === 'object' && entry !== null ? (entry as Record<string, unknown>) : {};
    const unknown = Object.keys(e).filter((k) => k !== 'change' && k !== 'reason');
    if (typeof e.change !== 'string' || !/^[a-z-]+:\S/.test(e.change))
      throw new AcknowledgementError(
        `${file}: entry ${i + 1} needs \`change\`: the id catalog:diff prints (\`<class>:<where>\`)`,
      );
    if (typeof e.reason !== 'string' || e.reason.trim().length < 10)
      throw new AcknowledgementError(
        `${file}: entry ${i + 1} (${e.change}) needs a \`reason\` a later reader understands (10 characters or more)`,
      );
    if (unknown.length) throw new AcknowledgementError(`${file}: entry ${i + 1} has unknown key \`${unknown[0]}\``);
    return { change: e.change, reason: e.reason.trim() };
  });
}

/** The rules a file may state (`rules:`): `uncalled` acknowledges a breaking change to a tool no one called. */
export const RULES = ['uncalled'] as const;

export interface AcknowledgementRule {
  readonly rule: (typeof RULES)[number];
  readonly reason: string;
}

/**
 * The file's `rules:` (codegen/diff/usage.ts applies them with a usage export); malformed entries are errors, as
 * for `acknowledged`.
 */
export function parseRules(text: string, file = ACKNOWLEDGEMENTS_FILE): AcknowledgementRule[] {
  parseAcknowledgements(text, file);
  const list = (parseDocument(text).toJS() as Record<string, unknown> | null)?.rules;
  if (list === undefined || list === null) return [];
  if (!Array.isArray(list)) throw new AcknowledgementError(`${file}: \`rules\` must be a list of { rule, reason }`);
  return list.map((entry, i) => {
    const e = typeof entry === 'object' && entry !== null ? (entry as Record<string, unknown>) : {};
    const unknown = Object.keys(e).filter((k) => k !== 'rule' && k !== 'reason');
    if (!RULES.includes(e.rule as AcknowledgementRule['rule']))
      throw new AcknowledgementError(`${file}: rule ${i + 1} needs \`rule\`: one of ${RULES.join(', ')}`);
    if (typeof e.reason !== 'string' || e.reason.trim().length < 10)
      throw new AcknowledgementError(`${file}: rule ${i + 1} needs a \`reason\` (10 characters or more)`);
    if (unknown.length) throw new AcknowledgementError(`${file}: rule ${i + 1} has unknown key \`${unknown[0]}\``);
    return { rule: e.rule as AcknowledgementRule['rule'], reason: e.reason.trim() };
  });
}

export interface Verdict {
  readonly changes: CatalogChange[];
  /** Breaking changes without an acknowledgement: the check fails when there is one. */
  readonly unacknowledged: CatalogChange[];
  /** Acknowledgements that name no change of this diff. */
  readonly unused: Acknowledgement[];
  readonly ok: boolean;
}

export function applyAcknowledgements(changes: readonly CatalogChange[], acks: readonly Acknowledgement[]): Verdict {
  const byId = new Map(acks.map((a) => [a.change, a]));
  const marked = changes.map((c) => (byId.has(c.id) ? { ...c, acknowledged: byId.get(c.id)!.reason } : c));
  const ids = new Set(changes.map((c) => c.id));
  const unacknowledged = marked.filter((c) => c.severity === 'breaking' && c.acknowledged === undefined);
  return {
    changes: marked,
    unacknowledged,
    unused: acks.filter((a) => !ids.has(a.change)),
    ok: unacknowledged.length === 0,
  };
}
