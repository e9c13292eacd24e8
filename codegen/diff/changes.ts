// The closed list of change classes `npm run catalog:diff` reports, each with its severity for a
// stable connector. Every difference between two catalogs ends in one of these (never unclassified).

export type Severity = 'breaking' | 'dangerous' | 'info';
export const SEVERITIES: readonly Severity[] = ['breaking', 'dangerous', 'info'];

export type Stability = 'stable' | 'early-access' | 'experimental';

interface ClassInfo {
  readonly severity: Severity;
  readonly title: string;
  /** The change alters what the assistant reads (descriptions, titles, instructions, notes). */
  readonly modelBehaviour?: true;
}

export const CHANGE_CLASSES = {
  // Breaking: an assistant's existing prompts or a client's existing calls may stop working.
  'connector-removed': { severity: 'breaking', title: 'connector removed' },
  'connector-id-changed': {
    severity: 'breaking',
    title: 'connector id changed (every endpoint path and tool name moves)',
  },
  'credential-changed': { severity: 'breaking', title: 'credential kind changed (tenants must connect again)' },
  'tool-removed': { severity: 'breaking', title: 'tool removed' },
  'tool-renamed': { severity: 'breaking', title: 'tool renamed' },
  'argument-removed': { severity: 'breaking', title: 'argument removed' },
  'argument-required': { severity: 'breaking', title: 'new required argument' },
  'type-narrowed': { severity: 'breaking', title: 'argument type narrowed' },
  'enum-value-removed': { severity: 'breaking', title: 'enum value removed' },
  'constraint-tightened': { severity: 'breaking', title: 'argument constraint tightened' },
  'limit-lowered': { severity: 'breaking', title: 'result, input or upstream limit lowered' },
  'output-field-removed': { severity: 'breaking', title: 'output field removed' },
  'output-widened': {
    severity: 'breaking',
    title: 'output widened (clients may get values or absences they were not promised)',
  },
  'structured-content-removed': {
    severity: 'breaking',
    title: 'structuredContent and output schemas no longer served',
  },
  'error-removed': { severity: 'breaking', title: 'error text removed' },
  'error-text-changed': { severity: 'breaking', title: 'error text changed' },
  'toolset-removed': { severity: 'breaking', title: 'toolset removed (a client that selects it is refused)' },
  // Dangerous: still works, but behaves or costs differently.
  'default-changed': { severity: 'dangerous', title: 'default changed' },
  'annotation-changed': { severity: 'dangerous', title: 'annotation flipped' },
  'write-changed': { severity: 'dangerous', title: 'tool switched between read and write' },
  'write-tool-added': { severity: 'dangerous', title: 'write tool added' },
  'tool-toolset-changed': {
    severity: 'dangerous',
    title: 'tool moved to another toolset (a client that selected the old one loses it)',
  },
  'check-order-changed': { severity: 'dangerous', title: 'check order changed' },
  'sunset-advanced': {
    severity: 'dangerous',
    title: 'sunset of a deprecated tool or argument moved earlier (clients planned with the later day)',
  },
  'limit-raised-upstream': { severity: 'dangerous', title: 'limit raised that costs upstream budget' },
  'setting-changed': { severity: 'dangerous', title: 'setting, timeout or retry changed' },
  'limit-added': { severity: 'dangerous', title: 'limit added' },
  'limit-removed': { severity: 'dangerous', title: 'limit removed' },
  'limit-kind-changed': { severity: 'dangerous', title: 'limit kind changed' },
  'upstream-changed': { severity: 'dangerous', title: 'upstream changed' },
  'error-behaviour-changed': { severity: 'dangerous', title: 'error reconnect flag or upstream classes changed' },
  'data-layer-changed': { severity: 'dangerous', title: 'data layer use changed' },
  'stability-lowered': { severity: 'dangerous', title: 'stability lowered' },
  'tool-reference-changed': {
    severity: 'dangerous',
    title: 'text now names another tool (changes model behaviour)',
    modelBehaviour: true,
  },
  'schema-changed': { severity: 'dangerous', title: 'schema changed in a way the diff cannot rank' },
  changed: { severity: 'dangerous', title: 'catalog entry changed' },
  // Information.
  'connector-added': { severity: 'info', title: 'connector added' },
  'tool-added': { severity: 'info', title: 'tool added' },
  'tool-deprecated': { severity: 'info', title: 'tool deprecated (listed with a notice until its sunset)' },
  'argument-deprecated': { severity: 'info', title: 'argument deprecated (listed with a notice until its sunset)' },
  'deprecation-changed': { severity: 'info', title: 'deprecation reason or replacement changed, or sunset later' },
  'deprecation-withdrawn': { severity: 'info', title: 'no longer deprecated' },
  'toolset-added': { severity: 'info', title: 'toolset added' },
  'toolset-changed': { severity: 'info', title: 'toolset title or description changed', modelBehaviour: true },
  'argument-added': { severity: 'info', title: 'optional argument added' },
  'argument-relaxed': { severity: 'info', title: 'argument no longer required' },
  'type-widened': { severity: 'info', title: 'argument type widened' },
  'enum-value-added': { severity: 'info', title: 'enum value added' },
  'constraint-loosened': { severity: 'info', title: 'argument constraint loosened' },
  'limit-raised': { severity: 'info', title: 'limit widened' },
  'output-field-added': { severity: 'info', title: 'output field added or now always present' },
  'output-narrowed': {
    severity: 'info',
    title: 'output narrowed (fewer values: a client of the wider output handles them)',
  },
  'structured-content-added': { severity: 'info', title: 'structuredContent and output schemas now served' },
  'error-added': { severity: 'info', title: 'error text added' },
  'error-when-changed': { severity: 'info', title: 'error situation described differently' },
  'tool-error-added': { severity: 'info', title: 'tool may end with another error' },
  'tool-error-removed': { severity: 'info', title: 'tool no longer ends with an error' },
  'stability-raised': { severity: 'info', title: 'stability raised' },
  'title-changed': { severity: 'info', title: 'title changed', modelBehaviour: true },
  'description-changed': { severity: 'info', title: 'description changed', modelBehaviour: true },
  'text-changed': { severity: 'info', title: 'result note text changed', modelBehaviour: true },
  'instructions-changed': { severity: 'info', title: 'instructions changed', modelBehaviour: true },
  'tool-reference-renamed': {
    severity: 'info',
    title: 'text names the same tools by new names (a rename, reported on its own, or a reference now rendered)',
  },
} as const satisfies Record<string, ClassInfo>;

export type ChangeCode = keyof typeof CHANGE_CLASSES;

export interface CatalogChange {
  /** `<code>:<where>`, stable across runs: what an acknowledgement names. */
  readonly id: string;
  readonly code: ChangeCode;
  /** Severity after the connector's stability is taken into account. */
  readonly severity: Severity;
  /** Severity of the class for a stable connector (differs from `severity` when stability lowered it). */
  readonly classSeverity: Severity;
  /** Stability of the connector as the base catalog declared it, when it lowered the severity. */
  readonly stability?: Exclude<Stability, 'stable'>;
  /** `platform`, `<connector key>` or `<connector key>/<tool>`, then a path inside (`/input.limit`). */
  readonly where: string;
  readonly message: string;
  readonly before?: unknown;
  readonly after?: unknown;
  readonly modelBehaviour?: true;
  /** With a usage export: the calls of the tool (a connector change: of the connector) in its period. */
  readonly calls?: number;
  /** For a changed error text: the tools that can return it (their `errors` list its code). */
  readonly tools?: readonly string[];
  /** The reviewer's reason, when an acknowledgement names this change (or the passed sunset, for a deprecated item). */
  readonly acknowledged?: string;
}

/** Severity of a class in a connector of the given stability (the base's: the promise clients had). */
export function severityFor(code: ChangeCode, stability: Stability): Severity {
  const severity: Severity = CHANGE_CLASSES[code].severity;
  if (stability === 'early-access' && severity === 'breaking') return 'dangerous';
  if (stability === 'experimental' && severity !== 'info') return 'info';
  return severity;
}
