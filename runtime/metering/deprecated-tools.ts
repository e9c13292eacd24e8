// Which calls the usage record shows apart: those of tools the spec marks deprecated
// (docs/decisions/operations.md, 'Calls of deprecated tools are counted apart').

/** The `<connector id>|<tool>` keys of every deprecated tool of the configured connectors. */
export function deprecatedToolKeys(
  connectors: readonly { readonly id: string; readonly tools: readonly { name: string; deprecated?: unknown }[] }[],
): Set<string> {
  return new Set(connectors.flatMap((c) => c.tools.filter((t) => t.deprecated).map((t) => `${c.id}|${t.name}`)));
}
