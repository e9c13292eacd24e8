import type { CasesHandler } from '#generated/cases/contract.ts';
import type { DescribeTypeResult } from '#generated/cases/types.ts';
import { runQuery } from './graphql-client.ts';
import { capResult } from './shared.ts';
import { printType, signature, TYPE_REF_SELECTION, type ArgRef, type TypeRef } from './type-ref.ts';

interface TypeInfo {
  kind: string;
  name: string;
  description: string | null;
  fields: Array<{ name: string; description: string | null; args: ArgRef[]; type: TypeRef }> | null;
  inputFields: Array<{ name: string; description: string | null; type: TypeRef; defaultValue: string | null }> | null;
  enumValues: Array<{ name: string; description: string | null }> | null;
  interfaces: Array<{ name: string }> | null;
  possibleTypes: Array<{ name: string }> | null;
}

const QUERY = `query DescribeType($name: String!) {
  __type(name: $name) {
    kind name description
    fields { name description args { name defaultValue type { ${TYPE_REF_SELECTION} } } type { ${TYPE_REF_SELECTION} } }
    inputFields { name description defaultValue type { ${TYPE_REF_SELECTION} } }
    enumValues { name description }
    interfaces { name }
    possibleTypes { name }
  }
}`;

function section<T>(items: readonly T[] | null, limit: number) {
  const all = items ?? [];
  const returned = all.slice(0, limit);
  return { total: all.length, returned: returned.length, truncated: all.length > returned.length, items: returned };
}

/** One type by exact name: its fields, input fields and enum values, each capped at `limit`. */
export const describeType: CasesHandler<'describe_type'> = async (args, ctx) => {
  const data = await runQuery<{ __type: TypeInfo | null }>(ctx, QUERY, { name: args.name });
  const t = data.__type;
  if (!t) return { name: args.name, found: false };
  const result: DescribeTypeResult & { interfaces?: string[]; possibleTypes?: string[] } = {
    name: t.name,
    kind: t.kind,
    description: t.description ?? null,
    found: true,
    fields: section(
      (t.fields ?? []).map((f) => ({
        name: f.name,
        description: f.description ?? null,
        signature: signature(f.name, f.args, f.type),
      })),
      args.limit,
    ),
    inputFields: section(
      (t.inputFields ?? []).map((f) => ({
        name: f.name,
        description: f.description ?? null,
        type: printType(f.type),
        ...(f.defaultValue != null ? { defaultValue: f.defaultValue } : {}),
      })),
      args.limit,
    ),
    enumValues: section(
      (t.enumValues ?? []).map((v) => ({ name: v.name, description: v.description ?? null })),
      args.limit,
    ),
  };
  if (t.interfaces && t.interfaces.length > 0) result.interfaces = t.interfaces.map((i) => i.name);
  if (t.possibleTypes && t.possibleTypes.length > 0) result.possibleTypes = t.possibleTypes.map((p) => p.name);
  return capResult(ctx, result);
};
