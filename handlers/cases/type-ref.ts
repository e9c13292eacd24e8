// One-line type signatures from introspection type references: `[Case!]!`, `field(arg: Type): Result`.

export interface TypeRef {
  readonly kind: string;
  readonly name: string | null;
  readonly ofType?: TypeRef | null;
}

export interface ArgRef {
  readonly name: string;
  readonly type: TypeRef;
  readonly defaultValue?: string | null;
}

/** Deep enough for `[[T!]!]!` and the usual wrappers. */
export const TYPE_REF_SELECTION =
  'kind name ofType { kind name ofType { kind name ofType { kind name ofType { kind name ofType { kind name } } } } }';

export function printType(t: TypeRef | null | undefined): string {
  if (!t) return '?';
  if (t.kind === 'NON_NULL') return `${printType(t.ofType)}!`;
  if (t.kind === 'LIST') return `[${printType(t.ofType)}]`;
  return t.name ?? '?';
}

export function signature(
  name: string,
  args: readonly ArgRef[] | null | undefined,
  type: TypeRef | null | undefined,
): string {
  const arg = (a: ArgRef): string =>
    `${a.name}: ${printType(a.type)}${a.defaultValue != null ? ` = ${a.defaultValue}` : ''}`;
  const list = args && args.length > 0 ? `(${args.map(arg).join(', ')})` : '';
  return `${name}${list}: ${printType(type)}`;
}
