// Tenant credentials on the command line's side: which fields a connector's credential kind takes,
// how `connections set` reads them (standard input, never arguments), which configured connector
// serves an instance id, and the vault after its key check.
import { join } from 'node:path';
import { text } from 'node:stream/consumers';
import { read } from 'read';
import { registry, type ConnectorKey } from '#generated/registry.ts';
import { envName, type GatewayConfig } from '#runtime/config/settings.ts';
import { suggest } from '#runtime/config/sources.ts';
import type { CredentialKind } from '#runtime/handler-api/descriptor-types.ts';
import { checkKeys } from '#runtime/secrets/key-check.ts';
import type { PlatformStore } from '#runtime/store/store.ts';
import { loadOrCreateKeyFile, Vault } from '#runtime/secrets/vault.ts';
import { connectorKey, type CredentialInput, UsageError } from './command.ts';

/** Credential fields an operator may set, by the connector's credential kind (required first). */
export const CREDENTIAL_FIELDS: Readonly<
  Record<CredentialKind, { readonly required: readonly string[]; readonly optional: readonly string[] }>
> = {
  api_key: { required: ['apiKey'], optional: [] },
  static_token: { required: ['token'], optional: [] },
  login_company: { required: ['username', 'password', 'companyId'], optional: [] },
  oauth2: { required: ['accessToken'], optional: ['refreshToken', 'expiresAt', 'scope'] },
  managed_basic: { required: [], optional: [] },
};

/** Fields that hold a secret: prompted for without echo. */
export const SECRET_FIELD = /key|secret|password|token/i;

/** The line of the help naming each connector's credential fields. */
export const CREDENTIAL_FIELDS_LINE = `Credential fields of connections set: ${Object.entries(registry)
  .filter(([, m]) => m.descriptor.credential !== 'managed_basic')
  .map(([key, m]) => {
    const fields = CREDENTIAL_FIELDS[m.descriptor.credential];
    return `${key} ${[...fields.required, ...fields.optional].join(' ')}`;
  })
  .join('; ')}.`;

export const NO_INPUT: CredentialInput = () =>
  Promise.reject(
    new UsageError('connections set reads the credential from standard input, and none is available here'),
  );

/**
 * The credential of `connections set` from this process's standard input: prompted field by field
 * (secrets without echo) on a terminal, otherwise `field=value` lines read to the end.
 */
export const stdinCredential: CredentialInput = async (fields) => {
  if (!process.stdin.isTTY) return text(process.stdin);
  const lines: string[] = [];
  for (const f of fields) {
    const value = await read({
      prompt: `${f.name}${f.required ? '' : ' (optional)'}: `,
      silent: f.secret,
      replace: f.secret ? '*' : '',
      output: process.stderr,
    });
    if (value !== '') lines.push(`${f.name}=${value}`);
  }
  return lines.join('\n');
};

/** The configured connector serving an instance id (`<id>` or `<id>-<n>`, n from 2 to its maxInstances). */
export function servingConnector(config: GatewayConfig, instanceId: string): GatewayConfig['connectors'][number] {
  for (const c of config.connectors) {
    if (instanceId === c.id) return c;
    const n = instanceId.startsWith(`${c.id}-`) ? instanceId.slice(c.id.length + 1) : '';
    if (/^[1-9]\d?$/.test(n) && Number(n) >= 2 && Number(n) <= c.maxInstances) return c;
  }
  throw new UsageError(
    `no connector serves the instance "${instanceId}"; ${suggest(
      instanceId,
      config.connectors.map((c) => c.id),
    )}`,
  );
}

/** The credential kind of a connector that takes tenant connections. */
export function credentialKind(key: ConnectorKey): Exclude<CredentialKind, 'managed_basic'> {
  const kind = registry[key].descriptor.credential;
  if (kind === 'managed_basic')
    throw new UsageError(
      `the ${key} connector uses the deployment's own account ` +
        `(${envName(key)}_USERNAME and ${envName(key)}_PASSWORD), not a tenant connection`,
    );
  return kind;
}

/** `field=value` pairs checked against the credential kind of the connector. */
export function credentialFields(key: ConnectorKey, pairs: readonly string[]): Record<string, string> {
  const kind = credentialKind(key);
  const { required, optional } = CREDENTIAL_FIELDS[kind];
  const known = [...required, ...optional];
  const fields: Record<string, string> = {};
  for (const p of pairs) {
    const eq = p.indexOf('=');
    // The line itself is never echoed: it may be a bare secret.
    if (eq <= 0)
      throw new UsageError(`expected field=value lines (fields: ${known.join(', ')}); a line has no "field="`);
    const name = p.slice(0, eq);
    if (!known.includes(name))
      throw new UsageError(`unknown credential field "${name}" for ${key} (${kind}); ${suggest(name, known)}`);
    if (Object.hasOwn(fields, name)) throw new UsageError(`credential field "${name}" is given twice`);
    fields[name] = p.slice(eq + 1);
  }
  const missing = required.filter((f) => !fields[f]);
  if (missing.length)
    throw new UsageError(
      `${key} (${kind}) needs ${required.map((f) => `${f}=…`).join(' ')}; missing ${missing.join(', ')}`,
    );
  return fields;
}

/** The connector key serving an instance, which must have a tool that uses the data layer. */
export function dataLayerConnector(config: GatewayConfig, instanceId: string): ConnectorKey {
  const served = servingConnector(config, instanceId);
  const key = connectorKey(served.key);
  if (!registry[key].descriptor.tools.some((t) => t.dataLayer))
    throw new UsageError(`the ${key} connector has no tool that uses the data layer`);
  return key;
}

export function vaultFor(config: GatewayConfig): Vault {
  return new Vault(config.secretKeys ?? loadOrCreateKeyFile(join(config.dataDir, 'secret.key')).keys);
}

/** The vault, after the key check against the database: never seal with a wrong key. */
export async function checkedVault(
  config: GatewayConfig,
  store: Pick<PlatformStore, 'kind' | 'connections'>,
): Promise<Vault> {
  const vault = vaultFor(config);
  await checkKeys(
    vault,
    store,
    config.secretKeys ? { kind: 'env' } : { kind: 'file', path: join(config.dataDir, 'secret.key') },
  );
  return vault;
}
