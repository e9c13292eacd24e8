// The catalogue of spec diagnostics. Every code has a title and a hint for the spec author, and a
// failing fixture in test/fixtures/diagnostics/ (test/codegen-diagnostics.test.ts checks both ways).

export type Severity = 'error' | 'warning';

export interface DiagnosticInfo {
  readonly title: string;
  readonly severity: Severity;
  readonly hint: string;
}

export const DIAGNOSTICS = {
  SPEC001: {
    title: 'YAML syntax error',
    severity: 'error',
    hint: 'Fix the YAML syntax at the position shown (indentation, quotes, duplicate keys).',
  },
  SPEC002: {
    title: 'Value does not match the spec format',
    severity: 'error',
    hint:
      'Compare with specs/spec-format.schema.json; an editor with the ' +
      'YAML language server shows the allowed values.',
  },
  SPEC003: {
    title: 'Unknown key',
    severity: 'error',
    hint: 'Remove the key or correct its spelling; the allowed keys are listed in specs/spec-format.schema.json.',
  },
  SPEC004: {
    title: 'Missing required key',
    severity: 'error',
    hint: 'Add the key; specs/spec-format.schema.json lists what each section requires.',
  },
  SPEC010: {
    title: 'Duplicate tool name',
    severity: 'error',
    hint: 'Tool names must be unique within a connector; rename or remove one of them.',
  },
  SPEC011: {
    title: 'Invalid full tool name',
    severity: 'error',
    hint:
      'A served name `<id>-99__<tool>` must be at most 64 characters of ' +
      '[A-Za-z0-9_-]; shorten the tool or connector id.',
  },
  SPEC012: {
    title: 'Invalid connector id',
    severity: 'error',
    hint: 'A connector id must match ^[a-z][a-z0-9-]*[a-z0-9]$ and must not contain `__`.',
  },
  SPEC013: {
    title: 'Duplicate connector id',
    severity: 'error',
    hint: 'Every connector file needs its own default id.',
  },
  SPEC020: {
    title: 'Input schema root is not an object',
    severity: 'error',
    hint: 'Tool arguments are a JSON object: set `type: object` on the root of `input`.',
  },
  SPEC021: {
    title: 'Default outside its schema',
    severity: 'error',
    hint: "Make the default satisfy the argument's own type, minimum/maximum, length, pattern or enum.",
  },
  SPEC022: {
    title: 'Required argument with a default',
    severity: 'error',
    hint:
      'A required argument is always passed, so its default is never ' +
      'used: drop the default or make the argument optional.',
  },
  SPEC023: {
    title: 'Tool without title or description',
    severity: 'error',
    hint: 'Every tool needs a short `title` and a `description` written for the AI assistant.',
  },
  SPEC024: {
    title: 'Write tool without confirm',
    severity: 'error',
    hint: 'A `write: true` tool must take an optional boolean `confirm` argument (preview unless true).',
  },
  SPEC025: {
    title: 'Error code used but not defined',
    severity: 'error',
    hint: 'Define the code under `connector.errors` (or `platform.errors` in specs/platform.yaml) or fix its spelling.',
  },
  SPEC026: {
    title: 'Unresolved $ref',
    severity: 'error',
    hint: "Only `#/definitions/<name>` references to this file's `definitions` are allowed.",
  },
  SPEC027: {
    title: 'Required property not declared',
    severity: 'error',
    hint: 'Every name in `required` must also be declared under `properties`.',
  },
  SPEC028: {
    title: 'Schema rejected by the validator compiler',
    severity: 'error',
    hint: 'The JSON Schema is not valid in strict mode (for example `minimum` on a string); fix the keyword shown.',
  },
  SPEC029: {
    title: 'Annotations contradict the tool kind',
    severity: 'error',
    hint: 'A read tool must keep readOnlyHint true; a write tool must set readOnlyHint false.',
  },
  SPEC030: {
    title: 'Error code defined but never used',
    severity: 'warning',
    hint: 'List the code in the `errors` of the tools that can return it, or remove it.',
  },
  SPEC031: {
    title: 'Platform spec missing',
    severity: 'error',
    hint: 'specs/platform.yaml holds the platform texts and system tools; restore it.',
  },
  SPEC032: {
    title: 'Output schema root is not an object',
    severity: 'error',
    hint:
      'MCP 2025 clients reject a tool whose outputSchema root is not `type: object` (2026-07-28 allows any root, ' +
      'but every endpoint also serves 2025): set `type: object` on the root of `output` and move alternatives ' +
      '(anyOf/oneOf) inside it. Only a connector without `structuredContent` may also allow a null result.',
  },
  SPEC033: {
    title: 'Upstream failure answered twice',
    severity: 'error',
    hint:
      'Each upstream failure class (`auth`, `throttled`, …) may be answered by one ' +
      'error code of a connector: remove it from one `upstream:` list.',
  },
  SPEC034: {
    title: 'Upstream answer needs a handler parameter',
    severity: 'error',
    hint:
      'The runtime fills in only {upstream} and {status} when it answers an upstream ' +
      'failure: drop the `upstream:` list, or the other placeholders.',
  },
  SPEC035: {
    title: 'OAuth block does not fit the connector',
    severity: 'error',
    hint:
      'An `oauth2` connector declares `connector.oauth` (and only it does); `oauth.refreshFailed` names one of ' +
      "the connector's errors marked `reconnect: true`, answered when the grant is refused at refresh.",
  },
  SPEC036: {
    title: 'Limit without a kind',
    severity: 'error',
    hint:
      'Say what the limit means to a caller under `connector.limitKinds` (or `platform.limitKinds` for ' +
      'names every connector shares): `result` (caps what a call returns), `input` (caps what a caller ' +
      'sends), `upstream` (upstream work or budget a call may spend) or `setting` (a default, duration ' +
      'or window). `npm run catalog:diff` classifies a changed value by it.',
  },
  SPEC037: {
    title: 'Connect block does not fit the connector',
    severity: 'error',
    hint:
      '`connector.appSecret` and `connector.connect` apply to credentials typed into the connect form (api_key, ' +
      'static_token, login_company); `connect.verify` names a read tool of the connector without required ' +
      "arguments, and `connect.rejected` one of the connector's errors whose only parameters are {upstream} and " +
      '{status}.',
  },
  SPEC038: {
    title: 'Reference to an unknown tool or argument',
    severity: 'error',
    hint:
      'A text names tools as `{{tool:<name>}}` (a tool of this connector, or connect_account where the ' +
      'connector lists it) and arguments as `{{arg:<name>}}` (an argument of the tool whose text it is) or ' +
      '`{{arg:<tool>.<name>}}`; fix the name, or rewrite the text after a rename or removal.',
  },
  SPEC039: {
    title: 'Tool named without a reference',
    severity: 'error',
    hint:
      'Clients call `<id>__<tool>` (and `<id>-<n>__<tool>` on further instances), and the id ' +
      'is deployment configuration: write `{{tool:<name>}}`, which each endpoint renders as ' +
      'the name its clients see and the generator checks on every rename.',
  },
  SPEC040: {
    title: 'Tool not in a toolset',
    severity: 'error',
    hint:
      'Every connector tool names the toolset it belongs to with `toolset: <id>`, one of the ids under the ' +
      'top-level `toolsets:` list; clients and administrators select tools by toolset.',
  },
  SPEC041: {
    title: 'Unknown toolset',
    severity: 'error',
    hint:
      "A tool's `toolset:` must name an id declared under the top-level `toolsets:` list; fix the spelling or " +
      'declare the toolset.',
  },
  SPEC042: {
    title: 'Empty toolset',
    severity: 'error',
    hint:
      'A toolset no tool names would be selectable but list nothing: move a tool into it with `toolset: <id>`, or ' +
      'remove it.',
  },
  SPEC043: {
    title: 'Invalid toolset id',
    severity: 'error',
    hint:
      'A toolset id is lowercase kebab or snake case (^[a-z][a-z0-9]*([-_][a-z0-9]+)*$, e.g. `invoices`, ' +
      '`sales-documents`): clients name it in the X-MCP-Toolsets header and in /x/<toolset> paths.',
  },
  SPEC044: {
    title: 'Duplicate toolset id',
    severity: 'error',
    hint: 'Toolset ids must be unique within a connector; rename or merge one of them.',
  },
  SPEC045: {
    title: 'Sunset passed',
    severity: 'error',
    hint:
      'The deprecated tool or argument is past its `sunset` day and still in the spec: remove it (npm run ' +
      'catalog:diff then reports the removal as acknowledged), or move the sunset later if clients still need it. ' +
      'Checked by `codegen --lint` only, so generated files never depend on the date.',
  },
  SPEC046: {
    title: 'Deprecation does not fit',
    severity: 'error',
    hint:
      '`deprecated: { reason, replacement, sunset }` goes on a tool or on a top-level property of its `input`; ' +
      '`replacement` names another tool of the same file (for a tool) or another argument of the same tool (for ' +
      'an argument); `sunset` is a real calendar day (YYYY-MM-DD).',
  },
  SPEC047: {
    title: 'Connection test is not a read tool without required arguments',
    severity: 'error',
    hint:
      '`connector.connectionTest` names the read tool the portal runs to test a stored connection: a tool of ' +
      'this connector, not a write, whose input requires no argument.',
  },
} as const satisfies Record<string, DiagnosticInfo>;

export type DiagnosticCode = keyof typeof DIAGNOSTICS;

export interface Position {
  readonly line: number;
  readonly col: number;
}

export interface Diagnostic {
  readonly code: DiagnosticCode;
  readonly file: string;
  readonly position: Position;
  readonly message: string;
  readonly hint: string;
  readonly severity: Severity;
}

export function diagnostic(
  code: DiagnosticCode,
  file: string,
  position: Position,
  message: string,
  hint?: string,
): Diagnostic {
  const info: DiagnosticInfo = DIAGNOSTICS[code];
  return { code, file, position, message, hint: hint ?? info.hint, severity: info.severity };
}

/** `file:line:col error SPEC010 message` followed by an indented hint line. */
export function formatDiagnostic(d: Diagnostic): string {
  return `${d.file}:${d.position.line}:${d.position.col} ${d.severity} ${d.code} ${d.message}\n    hint: ${d.hint}`;
}

export function sortDiagnostics(list: readonly Diagnostic[]): Diagnostic[] {
  return [...list].sort(
    (a, b) =>
      a.file.localeCompare(b.file) ||
      a.position.line - b.position.line ||
      a.position.col - b.position.col ||
      a.code.localeCompare(b.code),
  );
}
