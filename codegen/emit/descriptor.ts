// Descriptor tables: what `tools/list` returns, plus limits and error texts, per connector.
import type { ConnectorIR, ErrorIR, PlatformIR, ProtocolErrorIR, ToolIR } from '../ir.ts';
import { finish, headerLine, literal } from '../printer.ts';

export function toolDescriptor(tool: ToolIR, publishOutput: boolean): Record<string, unknown> {
  return {
    name: tool.name,
    title: tool.title,
    description: tool.description,
    ...(tool.deprecated ? { deprecated: tool.deprecated } : {}),
    ...(Object.keys(tool.deprecatedArguments).length ? { deprecatedArguments: tool.deprecatedArguments } : {}),
    ...(tool.toolset ? { toolset: tool.toolset } : {}),
    write: tool.write,
    annotations: tool.annotations,
    inputSchema: tool.inputSchema,
    ...(publishOutput && tool.outputSchema ? { outputSchema: tool.outputSchema } : {}),
    coerce: tool.coerce,
    limits: tool.limits,
    ...(tool.dataLayer ? { dataLayer: true } : {}),
    errors: tool.errors,
  };
}

export function errorTable(errors: readonly ErrorIR[]): Record<string, unknown> {
  return Object.fromEntries(
    errors.map((e) => [
      e.code,
      {
        text: e.text,
        params: e.params,
        ...(e.name ? { name: e.name } : {}),
        reconnect: e.reconnect,
        ...(e.upstream.length ? { upstream: e.upstream } : {}),
      },
    ]),
  );
}

export function protocolErrorTable(errors: readonly ProtocolErrorIR[]): Record<string, unknown> {
  return Object.fromEntries(errors.map((e) => [e.code, { text: e.text, params: e.params }]));
}

/** `{upstream}` in a text is the connector's upstream name, filled in by the runtime, never by a handler. */
export const RUNTIME_PARAMS: ReadonlySet<string> = new Set(['upstream']);

/** `{ code: { param: string } }` so a handler cannot forget or misspell a text's parameters. */
export function errorParamsType(name: string, errors: readonly Pick<ErrorIR, 'code' | 'params'>[]): string {
  const rows = errors.map((e) => {
    const params = e.params.filter((p) => !RUNTIME_PARAMS.has(p));
    // No parameters: `Record<string, never>`, so a stray parameter is refused too (`{}` would take any).
    return params.length === 0
      ? `  ${e.code}: Record<string, never>;`
      : `  ${e.code}: {${params.map((p) => ` ${p}: string | number;`).join('')} };`;
  });
  return `export interface ${name} {\n${rows.join('\n')}\n}`;
}

export function emitDescriptor(c: ConnectorIR): string {
  const p = c.typePrefix;
  const body = {
    key: c.key,
    defaultId: c.id,
    title: c.title,
    instructions: c.description,
    credential: c.credential,
    ...(c.oauth ? { oauth: c.oauth } : {}),
    tenantCredential: c.tenantCredential,
    ...(c.appSecret ? { appSecret: true } : {}),
    ...(c.connect ? { connect: c.connect } : {}),
    ...(c.connectionTest ? { connectionTest: c.connectionTest } : {}),
    connectAccount: c.connectAccount,
    structuredContent: c.structuredContent,
    upstream: c.upstream,
    limits: c.limits,
    errors: errorTable(c.errors),
    texts: c.texts,
    toolsets: c.toolsets,
    tools: c.tools.map((t) => toolDescriptor(t, c.structuredContent)),
  };
  const codes = c.errors.map((e) => `'${e.code}'`).join(' | ') || 'never';
  const text = [
    `import type { ConnectorDescriptor } from '#runtime/handler-api/descriptor-types.ts';`,
    '',
    `export type ${p}ErrorCode = ${codes};`,
    '',
    errorParamsType(`${p}ErrorParams`, c.errors),
    '',
    `export const ${c.key}Descriptor: ConnectorDescriptor<${p}ErrorCode> = ${literal(body)};`,
  ].join('\n');
  return finish(headerLine([c.source], 'ts'), text);
}

export function emitPlatform(platform: PlatformIR): string {
  const body = {
    errors: errorTable(platform.errors),
    protocolErrors: protocolErrorTable(platform.protocolErrors),
    instructions: platform.instructions,
    portalTexts: protocolErrorTable(platform.portalTexts),
    annotations: platform.annotations,
    limits: platform.limits,
    // The runtime asserts at start-up that its pipeline checks in this order (runtime/pipeline/check-order.ts).
    checkOrder: platform.checkOrder,
    systemTools: platform.systemTools.map((t) => toolDescriptor(t, false)),
  };
  const codes = platform.errors.map((e) => `'${e.code}'`).join(' | ');
  const text = [
    `import type { PlatformDescriptor } from '#runtime/handler-api/descriptor-types.ts';`,
    '',
    `export type PlatformErrorCode = ${codes};`,
    '',
    errorParamsType('PlatformErrorParams', platform.errors),
    '',
    'export type PlatformProtocolErrorCode = ' +
      `${platform.protocolErrors.map((e) => `'${e.code}'`).join(' | ') || 'never'};`,
    '',
    errorParamsType('PlatformProtocolErrorParams', platform.protocolErrors),
    '',
    `export type PlatformInstruction = ${
      Object.keys(platform.instructions)
        .map((k) => `'${k}'`)
        .join(' | ') || 'never'
    };`,
    '',
    `export type PlatformPortalText = ${platform.portalTexts.map((e) => `'${e.code}'`).join(' | ') || 'never'};`,
    '',
    errorParamsType('PlatformPortalTextParams', platform.portalTexts),
    '',
    "/** The platform's limits (`platform.limits` in specs/platform.yaml): an undeclared name does not compile. */",
    `export interface PlatformLimits {\n${Object.keys(platform.limits)
      .map((name) => `  readonly ${name}: number;`)
      .join('\n')}\n}`,
    '',
    '/** The platform descriptor as the runtime reads it: every code, text name and limit typed from the spec. */',
    'export type PlatformSpec = PlatformDescriptor<PlatformErrorCode, ' +
      'PlatformProtocolErrorCode, PlatformPortalText, PlatformLimits, PlatformInstruction>;',
    '',
    `export const platformDescriptor: PlatformSpec = ${literal(body)};`,
  ].join('\n');
  return finish(headerLine([platform.source], 'ts'), text);
}
