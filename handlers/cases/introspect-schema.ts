import type { CasesHandler } from '#generated/cases/contract.ts';
import type { IntrospectSchemaResult } from '#generated/cases/types.ts';
import { runQuery } from './graphql-client.ts';
import { capResult } from './shared.ts';
import { signature, TYPE_REF_SELECTION, type ArgRef, type TypeRef } from './type-ref.ts';

interface QueryField {
  name: string;
  description: string | null;
  args: ArgRef[];
  type: TypeRef;
}

const QUERY = (includeTypes: boolean) => `query IntrospectSchema {
  __schema {
    queryType {
      name
      fields {
        name
        description
        args { name defaultValue type { ${TYPE_REF_SELECTION} } }
        type { ${TYPE_REF_SELECTION} }
      }
    }
    ${includeTypes ? 'types { name }' : ''}
  }
}`;

/** Root query fields matching `search`, as one-line signatures; never the whole schema. */
export const introspectSchema: CasesHandler<'introspect_schema'> = async (args, ctx) => {
  const data = await runQuery<{
    __schema: { queryType: { name: string; fields: QueryField[] | null }; types?: Array<{ name: string }> };
  }>(ctx, QUERY(args.includeTypes));
  const needle = args.search?.toLowerCase();
  const matches = (data.__schema.queryType.fields ?? []).filter(
    (f) => !needle || f.name.toLowerCase().includes(needle) || (f.description ?? '').toLowerCase().includes(needle),
  );
  const fields = matches
    .slice(0, args.limit)
    .map((f) => ({ name: f.name, description: f.description ?? null, signature: signature(f.name, f.args, f.type) }));
  const result: IntrospectSchemaResult = {
    queryTypeName: data.__schema.queryType.name,
    total: matches.length,
    returned: fields.length,
    truncated: matches.length > fields.length,
    fields,
  };
  if (args.includeTypes) {
    const names = (data.__schema.types ?? [])
      .map((t) => t.name)
      .filter((n) => !n.startsWith('__') && (!needle || n.toLowerCase().includes(needle)))
      .sort();
    result.typeNames = names.slice(0, ctx.limits.typeNamesMax);
    result.typeNamesTruncated = names.length > ctx.limits.typeNamesMax;
  }
  return capResult(ctx, result);
};
