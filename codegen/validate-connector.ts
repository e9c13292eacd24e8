// The lints of a connector's own settings (codegen/validate.ts runs them): limit kinds, the connect
// form, OAuth, and the upstream answers its error texts stand for.
import { diagnostic, type Diagnostic } from './diagnostics.ts';
import { locate, type PathSegment, type SpecSource } from './load.ts';
import { placeholders } from './ir.ts';
import { isObject } from './schema.ts';

/** Every limit name the file uses has a kind, in its own `limitKinds` or the platform's (SPEC036). */
export function lintLimitKinds(
  source: SpecSource,
  section: Record<string, unknown> | undefined,
  toolLists: Array<{ tools: unknown[]; base: PathSegment[] }>,
  platformLimitKinds: ReadonlySet<string>,
): Diagnostic[] {
  if (!section) return [];
  const sectionKey = section === (source.data as Record<string, unknown>).platform ? 'platform' : 'connector';
  const own = new Set(isObject(section.limitKinds) ? Object.keys(section.limitKinds) : []);
  const uses: Array<{ name: string; path: PathSegment[] }> = [];
  if (isObject(section.limits))
    for (const name of Object.keys(section.limits)) uses.push({ name, path: [sectionKey, 'limits', name] });
  for (const { tools, base } of toolLists) {
    tools.forEach((tool, index) => {
      if (isObject(tool) && isObject(tool.limits))
        for (const name of Object.keys(tool.limits)) uses.push({ name, path: [...base, index, 'limits', name] });
    });
  }
  const out: Diagnostic[] = [];
  const reported = new Set<string>();
  for (const { name, path } of uses) {
    if (own.has(name) || platformLimitKinds.has(name) || reported.has(name)) continue;
    reported.add(name);
    out.push(
      diagnostic(
        'SPEC036',
        source.file,
        locate(source, path, true),
        `limit \`${name}\` has no kind in ` +
          `\`${sectionKey}.limitKinds\`${sectionKey === 'connector' ? ' or platform.limitKinds' : ''}`,
      ),
    );
  }
  return out;
}

/** Whether `name` is a read tool of `tools` whose input requires no argument. */
function isPlainRead(tools: readonly unknown[], name: unknown): boolean {
  const tool = tools.find((t): t is Record<string, unknown> => isObject(t) && t.name === name);
  const required = tool && isObject(tool.input) && Array.isArray(tool.input.required) ? tool.input.required : [];
  return tool !== undefined && tool.write !== true && required.length === 0;
}

/** `connector.connectionTest` (SPEC047): a read tool of the connector without required arguments. */
export function lintConnectionTest(
  source: SpecSource,
  connector: Record<string, unknown>,
  tools: readonly unknown[],
): Diagnostic[] {
  const name = connector.connectionTest;
  if (typeof name !== 'string' || isPlainRead(tools, name)) return [];
  return [
    diagnostic(
      'SPEC047',
      source.file,
      locate(source, ['connector', 'connectionTest']),
      `\`connector.connectionTest\` names \`${name}\`, which is not a read tool of this connector without required ` +
        'arguments',
    ),
  ];
}

/** Credentials a tenant types into the connect form: the only ones `appSecret` and `connect` apply to. */
const FORM_CREDENTIALS: ReadonlySet<unknown> = new Set(['api_key', 'static_token', 'login_company']);

/**
 * `connector.appSecret` and `connector.connect` (SPEC037): only for a credential typed into the
 * connect form; `connect.verify` names a read tool of the connector without required arguments,
 * `connect.rejected` an error of the connector the runtime can fill in by itself.
 */
export function lintConnect(
  source: SpecSource,
  connector: Record<string, unknown>,
  tools: readonly unknown[],
): Diagnostic[] {
  const at = (path: PathSegment[], key = false) => locate(source, path, key);
  const out: Diagnostic[] = [];
  const kind = String(connector.credential);
  if (connector.appSecret === true && !FORM_CREDENTIALS.has(connector.credential)) {
    out.push(
      diagnostic(
        'SPEC037',
        source.file,
        at(['connector', 'appSecret'], true),
        `\`connector.appSecret\` is only for credentials typed into the connect form, not \`${kind}\``,
      ),
    );
  }
  const connect = isObject(connector.connect) ? connector.connect : undefined;
  if (!connect) return out;
  if (!FORM_CREDENTIALS.has(connector.credential)) {
    out.push(
      diagnostic(
        'SPEC037',
        source.file,
        at(['connector', 'connect'], true),
        `\`connector.connect\` is only for credentials typed into the connect form, not \`${kind}\``,
      ),
    );
    return out;
  }
  if (typeof connect.verify === 'string' && !isPlainRead(tools, connect.verify)) {
    out.push(
      diagnostic(
        'SPEC037',
        source.file,
        at(['connector', 'connect', 'verify']),
        `\`connect.verify\` names \`${connect.verify}\`, which is not a ` +
          'read tool of this connector without required arguments',
      ),
    );
  }
  const entry =
    isObject(connector.errors) && typeof connect.rejected === 'string' ? connector.errors[connect.rejected] : undefined;
  const text =
    typeof entry === 'string' ? entry : isObject(entry) && typeof entry.text === 'string' ? entry.text : undefined;
  const extra =
    text === undefined
      ? []
      : [...text.matchAll(/\{([a-z_][a-z0-9_]*)\}/gi)]
          .map((m) => m[1]!)
          .filter((p) => p !== 'upstream' && p !== 'status');
  if (typeof connect.rejected === 'string' && (text === undefined || extra.length > 0)) {
    out.push(
      diagnostic(
        'SPEC037',
        source.file,
        at(['connector', 'connect', 'rejected']),
        text === undefined
          ? `\`connect.rejected\` names \`${connect.rejected}\`, which is not an error of this connector`
          : `\`connect.rejected\` names \`${connect.rejected}\`, whose text needs ` +
              `{${extra.join('}, {')}}; the runtime fills in only {upstream} and {status}`,
      ),
    );
  }
  return out;
}

/**
 * `connector.oauth`: present exactly on `oauth2` connectors, naming a reconnect text to answer a refused grant
 * (SPEC035).
 */
export function lintOAuth(source: SpecSource, connector: Record<string, unknown>): Diagnostic[] {
  const at = (path: PathSegment[], key = false) => locate(source, path, key);
  const oauth = isObject(connector.oauth) ? connector.oauth : undefined;
  if (connector.credential === 'oauth2' && !oauth)
    return [
      diagnostic(
        'SPEC035',
        source.file,
        at(['connector', 'credential']),
        'an `oauth2` connector needs a `connector.oauth` block',
      ),
    ];
  if (!oauth) return [];
  if (connector.credential !== 'oauth2')
    return [
      diagnostic(
        'SPEC035',
        source.file,
        at(['connector', 'oauth'], true),
        `\`connector.oauth\` is only for \`oauth2\` connectors, not \`${String(connector.credential)}\``,
      ),
    ];
  const code = oauth.refreshFailed;
  const entry = isObject(connector.errors) && typeof code === 'string' ? connector.errors[code] : undefined;
  if (typeof code === 'string' && !(isObject(entry) && entry.reconnect === true)) {
    return [
      diagnostic(
        'SPEC035',
        source.file,
        at(['connector', 'oauth', 'refreshFailed']),
        `\`oauth.refreshFailed\` names \`${code}\`, which is not an error of this connector marked \`reconnect: true\``,
      ),
    ];
  }
  return [];
}

/**
 * `upstream:` on an error: each failure class answered by one code only (SPEC033), and a text the
 * runtime can fill in by itself, with no parameter but `{upstream}` and `{status}` (SPEC034).
 */
export function lintUpstreamAnswers(source: SpecSource, errors: Record<string, unknown>): Diagnostic[] {
  const out: Diagnostic[] = [];
  const at = (path: (string | number)[]) => locate(source, path);
  const claimed = new Map<string, string>();
  for (const [code, entry] of Object.entries(errors)) {
    if (!isObject(entry) || !Array.isArray(entry.upstream)) continue;
    for (const [i, kind] of entry.upstream.entries()) {
      const first = claimed.get(String(kind));
      if (first)
        out.push(
          diagnostic(
            'SPEC033',
            source.file,
            at(['connector', 'errors', code, 'upstream', i]),
            `upstream failure \`${String(kind)}\` is answered by both \`${first}\` and \`${code}\``,
          ),
        );
      else claimed.set(String(kind), code);
    }
    const extra =
      typeof entry.text === 'string' ? placeholders(entry.text).filter((p) => p !== 'upstream' && p !== 'status') : [];
    if (extra.length > 0)
      out.push(
        diagnostic(
          'SPEC034',
          source.file,
          at(['connector', 'errors', code, 'upstream']),
          `error \`${code}\` answers upstream failures, but its text needs ` +
            `{${extra.join('}, {')}}, which only a handler knows`,
        ),
      );
  }
  return out;
}
