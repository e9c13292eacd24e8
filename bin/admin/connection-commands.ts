// Tenant connections (the credential an account stores for an instance), the data-layer opt-in,
// and the keys that seal the credentials.
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadOrCreateKeyFile, newSecretKey, VaultError } from '#runtime/secrets/vault.ts';
import { connectionRefusal } from '#runtime/portal/account-rules.ts';
import {
  type AdminCommand,
  CommandError,
  type CommandContext,
  confirmed,
  connectorKey,
  existingAccount,
  need,
  noMore,
  NotFoundError,
  RefusedError,
  UsageError,
} from './command.ts';
import {
  CREDENTIAL_FIELDS,
  CREDENTIAL_FIELDS_LINE,
  checkedVault,
  credentialFields,
  credentialKind,
  dataLayerConnector,
  SECRET_FIELD,
  servingConnector,
} from './credentials.ts';

/** Stores a connection: the credential from the input (never the command line), sealed. */
async function setConnection(ctx: CommandContext, args: string[]): Promise<void> {
  const { config, store } = ctx;
  const [accountId, instanceId, ...extra] = need(args, 2, 'accountId and instanceId');
  if (extra.length > 0) {
    throw new UsageError(
      'connections set takes no credential on the command line (every local user can read arguments in the ' +
        `process list): give field=value lines on standard input, e.g. printf 'apiKey=%s\\n' "$API_KEY" | npm ` +
        `run admin -- connections set ${accountId} ${instanceId}, or type them at the prompt`,
    );
  }
  const endpointConnector = servingConnector(config, instanceId!);
  const key = connectorKey(endpointConnector.key);
  const kind = credentialKind(key);
  await existingAccount(ctx, accountId!);
  // The portal's rule (runtime/portal/account-rules.ts), before any credential is read.
  if (connectionRefusal((await store.accounts.listSubscriptions(accountId!)).includes(key), kind)) {
    throw new RefusedError(
      `account ${accountId} is not subscribed to ${key}: run "subscriptions set ${accountId} ${key} on" first`,
    );
  }
  const { required, optional } = CREDENTIAL_FIELDS[kind];
  const prompts = [
    ...required.map((name) => ({ name, required: true })),
    ...optional.map((name) => ({ name, required: false })),
  ].map((f) => ({ ...f, secret: SECRET_FIELD.test(f.name) }));
  const lines = (await ctx.input(prompts))
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('#'));
  const fields: Record<string, string | number> = credentialFields(key, lines);
  if (fields.expiresAt !== undefined) fields.expiresAt = futureExpiry(String(fields.expiresAt));
  const sealed = (await checkedVault(config, store)).seal(JSON.stringify(fields), accountId!, instanceId!);
  await store.connections.putConnection({
    accountId: accountId!,
    instanceId: instanceId!,
    connectorKey: endpointConnector.key,
    ...sealed,
  });
  await ctx.audit(accountId!, 'connection.set', instanceId!, { connector: endpointConnector.key });
  ctx.print(
    { accountId, instanceId, connector: endpointConnector.key, keyVersion: sealed.keyVersion },
    `stored (encrypted, key version ${sealed.keyVersion})`,
  );
}

/**
 * An OAuth credential's expiresAt (epoch milliseconds, or an ISO 8601 time) as the grant holds it: epoch milliseconds,
 * in the future.
 */
function futureExpiry(value: string): number {
  const at = /^\d+$/.test(value) ? Number(value) : Date.parse(value);
  if (!Number.isFinite(at))
    throw new UsageError('expiresAt is epoch milliseconds or an ISO 8601 time (2030-01-31T12:00:00Z)');
  if (at <= Date.now())
    throw new RefusedError(
      `expiresAt ${new Date(at).toISOString()} is in the past: the access token would be refreshed (or refused) ` +
        'at the first call',
    );
  return at;
}

/** `data-layer enable|disable|status`: the opt-in first-seen records of an instance. */
async function dataLayer(ctx: CommandContext, args: string[], command: 'enable' | 'disable' | 'status'): Promise<void> {
  const { store } = ctx;
  const [accountId, instanceId] = need(args, 2, 'accountId and instanceId');
  dataLayerConnector(ctx.config, instanceId!);
  if (command === 'enable') {
    if (!(await store.connections.getConnection(accountId!, instanceId!)))
      throw new RefusedError(`${accountId}/${instanceId} has no connection: connect it first`);
    const enabled = await store.dataLayer.enableDataLayer(accountId!, instanceId!, new Date());
    await ctx.audit(accountId!, 'data_layer.enable', instanceId!);
    return ctx.print({ enabled: true, ...enabled });
  }
  if (command === 'disable') {
    await ctx.audit(accountId!, 'data_layer.disable', instanceId!);
    const was = await store.dataLayer.disableDataLayer(accountId!, instanceId!);
    return ctx.print(
      { enabled: false, wasEnabled: was },
      was ? 'disabled; the recorded items were deleted' : 'was not enabled',
    );
  }
  const state = await store.dataLayer.getDataLayer(accountId!, instanceId!);
  ctx.print(state ? { enabled: true, ...state } : { enabled: false });
}

/** Re-seals every credential not under the newest key; one that cannot be opened is named and counted. */
async function reencrypt(ctx: CommandContext): Promise<void> {
  const vault = await checkedVault(ctx.config, ctx.store);
  let changed = 0;
  let failed = 0;
  for (const c of await ctx.store.connections.listConnections()) {
    if (c.keyVersion === vault.activeVersion) continue;
    try {
      const sealed = vault.seal(vault.open(c.ciphertext, c.accountId, c.instanceId), c.accountId, c.instanceId);
      if (
        await ctx.store.connections.replaceCiphertext(
          c.accountId,
          c.instanceId,
          c.keyVersion,
          sealed.ciphertext,
          sealed.keyVersion,
        )
      )
        changed++;
    } catch (error) {
      failed++;
      ctx.note(
        `cannot re-encrypt ${c.accountId}/${c.instanceId}: ` +
          `${error instanceof VaultError ? error.message : 'unreadable'}`,
      );
    }
  }
  ctx.print(
    { reencrypted: changed, failed, keyVersion: vault.activeVersion },
    `re-encrypted ${changed} credential(s) under key version ${vault.activeVersion}` +
      `${failed ? `; ${failed} failed` : ''}`,
  );
  if (failed) throw new CommandError(`${failed} credential(s) could not be re-encrypted`);
}

const INSTANCE_LINE = '<instanceId> is an endpoint id: a connector id, or <id>-<n> for another company file of it.';

export const CONNECTION_COMMANDS: readonly AdminCommand[] = [
  {
    name: 'connections list',
    args: '[<accountId>]',
    summary: "lists connections (never a credential), every account's without <accountId>",
    run: async (ctx, args) => {
      noMore(args, 1);
      if (args[0] !== undefined) await existingAccount(ctx, args[0]);
      ctx.print((await ctx.store.connections.listConnections(args[0])).map(({ ciphertext: _c, ...c }) => c));
    },
  },
  {
    name: 'connections set',
    args: '<accountId> <instanceId>',
    summary: 'stores the credential, read from standard input as field=value lines',
    details: [
      'On a terminal it prompts field by field (secrets without echo); otherwise it reads lines such as',
      'apiKey=…, or username=… password=… companyId=…, to the end of the input. Never on the command',
      'line: every local user can read arguments in the process list. It is stored encrypted.',
      INSTANCE_LINE,
      CREDENTIAL_FIELDS_LINE,
    ],
    run: setConnection,
  },
  {
    name: 'connections delete',
    args: '<accountId> <instanceId> --yes',
    summary: "deletes the account's connection of the instance",
    details: ['The stored credential is gone for good: --yes confirms it.', INSTANCE_LINE],
    run: async (ctx, args) => {
      confirmed(args, 'deleting a connection (its stored credential)');
      const [accountId, instanceId] = need(args, 2, 'accountId and instanceId');
      noMore(args, 2);
      await existingAccount(ctx, accountId!);
      if (!(await ctx.store.connections.getConnection(accountId!, instanceId!)))
        throw new NotFoundError(
          `no such connection ${accountId}/${instanceId} (connections list ${accountId} shows them)`,
        );
      await ctx.store.connections.deleteConnection(accountId!, instanceId!);
      await ctx.audit(accountId!, 'connection.delete', instanceId!);
      ctx.print({ deleted: { accountId, instanceId } }, `deleted the connection ${accountId}/${instanceId}`);
    },
  },
  ...(['enable', 'disable', 'status'] as const).map(
    (command): AdminCommand => ({
      name: `data-layer ${command}`,
      args: '<accountId> <instanceId>',
      summary: {
        enable: 'opts the instance in to first-seen records (it must be connected)',
        disable: 'opts the instance out and deletes its first-seen records',
        status: "whether the instance's first-seen records are on, since when, and how many",
      }[command],
      details: [INSTANCE_LINE],
      run: (ctx, args) => dataLayer(ctx, args, command),
    }),
  ),
  {
    name: 'keys add',
    args: '',
    summary: 'adds a new key version to the key file (embedded default)',
    details: [
      'With GATEWAY_SECRET_KEYS set, add the new "<version>:<base64>" entry there instead.',
      'Then restart the gateway and run keys reencrypt.',
    ],
    run: async (ctx) => {
      const { config } = ctx;
      if (config.secretKeys)
        throw new RefusedError(
          'keys come from GATEWAY_SECRET_KEYS here: add a new "<version>:<base64>" entry there (generate one ' +
            'with: openssl rand -base64 32)',
        );
      const file = join(config.dataDir, 'secret.key');
      const { keys } = loadOrCreateKeyFile(file);
      const version = Math.max(...Object.keys(keys).map(Number)) + 1;
      appendFileSync(file, `${version}:${newSecretKey()}\n`);
      ctx.print(
        { keyVersion: version, file },
        `added key version ${version} to ${file}; run "keys reencrypt" after restarting the gateway`,
      );
    },
  },
  {
    name: 'keys reencrypt',
    args: '',
    summary: 're-encrypts every credential under the newest key',
    run: reencrypt,
  },
];
