// Errors a handler raises on purpose, through `ctx.fail` and `ctx.refuseArguments` only (a handler
// importing ToolError fails the lint: biome.json). The runtime turns them into the connector's spec
// text; anything else a handler throws becomes the generic text (and is logged, without secrets).

export type ErrorParams = Readonly<Record<string, string | number>>;

export class ToolError extends Error {
  readonly code: string;
  readonly params: ErrorParams;
  constructor(code: string, params: ErrorParams = {}, detail?: string) {
    super(detail ?? code);
    this.name = 'ToolError';
    this.code = code;
    this.params = params;
  }
}

/**
 * The spec code a caught failure was raised with (`ctx.fail`, `ctx.refuseArguments`), or undefined
 * for any other failure: how a handler tells a section's fatal failure from one it reports.
 */
export function failureCode(error: unknown): string | undefined {
  return error instanceof ToolError ? error.code : undefined;
}

/**
 * A handler's refusal of its arguments (`ctx.refuseArguments`): the same texts as `ToolError`, but
 * the call is not metered when no upstream request was made (DECISIONS §8).
 */
export class ArgumentRefusal extends ToolError {
  constructor(code: string, params: ErrorParams = {}) {
    super(code, params);
    this.name = 'ArgumentRefusal';
  }
}

/** Fills `{name}` placeholders; a missing parameter is left visible rather than guessed. */
export function formatText(text: string, params: ErrorParams): string {
  return text.replace(/\{([a-z_][a-z0-9_]*)\}/g, (whole, name: string) =>
    name in params ? String(params[name]) : whole,
  );
}
