// An account's tool settings per endpoint instance: toolsets and tools turned off, read-only
// (docs/decisions/mcp-authorization.md, 'Tool settings of an instance').
import { registry } from '#generated/registry.ts';
import { parseTurnedOff } from '#runtime/auth/token-scope.ts';
import type { InstanceToolSettings } from '#runtime/store/store.ts';
import {
  type AdminCommand,
  type CommandContext,
  connectorKey,
  existingAccount,
  flag,
  need,
  noMore,
  onOff,
  UsageError,
} from './command.ts';
import { servingConnector } from './credentials.ts';

const NO_SETTINGS = { disabledToolsets: [], disabledTools: [], readOnly: false } as const;

/** The account, instance and connector a command names, checked. */
async function target(ctx: CommandContext, args: string[]) {
  const [accountId, instanceId] = need(args, 2, 'accountId and instanceId');
  await existingAccount(ctx, accountId!);
  const connector = servingConnector(ctx.config, instanceId!);
  const { descriptor } = registry[connectorKey(connector.key)];
  return { accountId: accountId!, instanceId: instanceId!, connector: connector.key, descriptor };
}

const shown = (s: Pick<InstanceToolSettings, 'disabledToolsets' | 'disabledTools' | 'readOnly'>) => ({
  disabledToolsets: s.disabledToolsets,
  disabledTools: s.disabledTools,
  readOnly: s.readOnly,
});

export const TOOL_SETTINGS_COMMANDS: readonly AdminCommand[] = [
  {
    name: 'tools show',
    args: '<accountId> <instanceId>',
    summary: "the instance's tools the account turned off (toolsets, tools, read-only)",
    run: async (ctx, args) => {
      const t = await target(ctx, args);
      noMore(args, 2);
      const settings = (await ctx.store.connections.getToolSettings(t.accountId, t.instanceId)) ?? NO_SETTINGS;
      ctx.print({ accountId: t.accountId, instanceId: t.instanceId, connector: t.connector, ...shown(settings) });
    },
  },
  {
    name: 'tools set',
    args: '<accountId> <instanceId> [--off-toolsets a,b|none] [--off-tools x,y|none] [--read-only on|off]',
    summary: 'turns toolsets or tools of an instance off (or on again) for the whole account',
    details: [
      'Flags not given keep their value. Tools turned off are absent from tools/list and answer "Unknown tool."',
      'for every user, token and assistant of the account, whatever the client selects.',
    ],
    run: async (ctx, args) => {
      const toolsets = flag(args, '--off-toolsets');
      const tools = flag(args, '--off-tools');
      const readOnly = flag(args, '--read-only');
      const t = await target(ctx, args);
      noMore(args, 2);
      const before = (await ctx.store.connections.getToolSettings(t.accountId, t.instanceId)) ?? NO_SETTINGS;
      const names = {
        toolsets: t.descriptor.toolsets.map((x) => x.id),
        tools: t.descriptor.tools.map((x) => x.name),
      };
      const off = parseTurnedOff(
        {
          toolsets: toolsets ?? before.disabledToolsets.join(','),
          tools: tools ?? before.disabledTools.join(','),
        },
        names,
      );
      if ('error' in off) throw new UsageError(off.error);
      const settings = { ...off, readOnly: readOnly === undefined ? before.readOnly : onOff(readOnly) };
      await ctx.store.connections.putToolSettings({ accountId: t.accountId, instanceId: t.instanceId, ...settings });
      await ctx.audit(t.accountId, 'tools.set', t.instanceId, {
        off_toolsets: settings.disabledToolsets.join(',') || 'none',
        off_tools: settings.disabledTools.join(',') || 'none',
        read_only: settings.readOnly,
      });
      ctx.print({ accountId: t.accountId, instanceId: t.instanceId, connector: t.connector, ...shown(settings) });
    },
  },
];
