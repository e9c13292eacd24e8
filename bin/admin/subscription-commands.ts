// What an account pays for and uses: subscriptions, seats, the fair-use policy and usage.
import { existsSync } from 'node:fs';
import pino from 'pino';
import type { FairUseMode } from '#runtime/store/store.ts';
import { deprecatedToolKeys } from '#runtime/metering/deprecated-tools.ts';
import { UsageMeter } from '#runtime/metering/usage.ts';
import { registry, type ConnectorKey } from '#generated/registry.ts';
import { applySpill, spillFiles } from '#runtime/metering/usage-spill.ts';
import {
  type AdminCommand,
  CONNECTOR_KEYS_LINE,
  connectorKey,
  existingAccount,
  existingUser,
  flag,
  MONTH,
  need,
  NotFoundError,
  onOff,
  RefusedError,
  UsageError,
} from './command.ts';

export const SUBSCRIPTION_COMMANDS: readonly AdminCommand[] = [
  {
    name: 'subscriptions list',
    args: '<accountId>',
    summary: 'the connectors the account is subscribed to',
    run: async (ctx, args) => {
      const account = await existingAccount(ctx, need(args, 1, 'accountId')[0]!);
      ctx.print(await ctx.store.accounts.listSubscriptions(account.id));
    },
  },
  {
    name: 'subscriptions set',
    args: '<accountId> <connector> on|off',
    summary: 'subscribes the account to a connector, or ends the subscription',
    details: [CONNECTOR_KEYS_LINE],
    run: async (ctx, args) => {
      const [accountId, key, state] = need(args, 3, 'accountId, connector and on|off');
      const connector = connectorKey(key!);
      const on = onOff(state);
      await existingAccount(ctx, accountId!);
      await ctx.store.accounts.setSubscription(accountId!, connector, on);
      await ctx.audit(accountId!, 'subscription.set', key!, { subscribed: state });
      ctx.print(
        { accountId, connector, subscribed: on },
        `${accountId} ${on ? 'is subscribed to' : 'is no longer subscribed to'} ${connector}`,
      );
    },
  },
  {
    name: 'seats list',
    args: '<userId>',
    summary: 'the connectors the user holds a seat of',
    run: async (ctx, args) => {
      const user = await existingUser(ctx, need(args, 1, 'userId')[0]!);
      ctx.print(await ctx.store.users.listSeats(user.id));
    },
  },
  {
    name: 'seats set',
    args: '<userId> <connector> on|off',
    summary: 'gives the user a seat of a subscribed connector, or takes it',
    details: [CONNECTOR_KEYS_LINE],
    run: async (ctx, args) => {
      const [userId, key, state] = need(args, 3, 'userId, connector and on|off');
      const connector = connectorKey(key!);
      const on = onOff(state);
      const user = await existingUser(ctx, userId!);
      if (on && !(await ctx.store.accounts.listSubscriptions(user.accountId)).includes(connector)) {
        throw new RefusedError(
          `account ${user.accountId} is not subscribed to ${connector}: run "subscriptions set ${user.accountId} ` +
            `${connector}` +
            ' on" first',
        );
      }
      await ctx.store.users.setSeat(userId!, connector, on);
      await ctx.audit(user.accountId, 'seats.set', user.accountId, {
        changes: `${user.email}:${connector}:${on ? 'on' : 'off'}`,
      });
      ctx.print(
        { userId: user.id, connector, seat: on },
        `${user.email} ${on ? 'holds' : 'no longer holds'} a seat of ${connector}`,
      );
    },
  },
  {
    name: 'fair-use set',
    args: '<accountId> [--mode off|soft|hard] [--quota <n>|default]',
    summary: "sets the account's fair-use mode or monthly quota",
    details: ['At least one of --mode and --quota; --quota default goes back to the deployment default quota.'],
    run: async (ctx, args) => {
      const mode = flag(args, '--mode') as FairUseMode | undefined;
      const quotaArg = flag(args, '--quota');
      if (mode && !['off', 'soft', 'hard'].includes(mode)) throw new UsageError('--mode is off, soft or hard');
      const quota = quotaArg === undefined ? undefined : quotaArg === 'default' ? null : Number(quotaArg);
      if (quota !== undefined && quota !== null && (!Number.isInteger(quota) || quota < 0))
        throw new UsageError('--quota is a non-negative integer or "default"');
      const accountId = need(args, 1, 'accountId')[0]!;
      if (!mode && quota === undefined) throw new UsageError('nothing to set: give --mode, --quota or both');
      await existingAccount(ctx, accountId);
      await ctx.store.accounts.setFairUse(accountId, {
        ...(mode ? { mode } : {}),
        ...(quota !== undefined ? { quota } : {}),
      });
      await ctx.audit(accountId, 'fair_use.set', accountId, { mode, quota: quota === null ? 'default' : quota });
      const account = await existingAccount(ctx, accountId);
      ctx.print(
        { accountId, mode: account.fairUseMode, quota: account.fairUseQuota },
        `${accountId}: fair use ${account.fairUseMode}, quota ${account.fairUseQuota ?? 'the deployment default'}`,
      );
    },
  },
  {
    name: 'usage',
    args: '<accountId> [--month YYYY-MM]',
    summary: "the account's calls this month (or the month given) and its fair-use state",
    details: [
      'The same record with or without --month: calls per connector and tool, and the fair-use state of that month.',
    ],
    run: async (ctx, words) => {
      // The account id is the word right after "usage"; the flags come after it.
      const [accountId, ...args] = words;
      const monthArg = flag(args, '--month');
      if (monthArg !== undefined && !MONTH.test(monthArg))
        throw new UsageError(`--month is YYYY-MM with a month from 01 to 12, got "${monthArg}"`);
      if (!accountId) throw new UsageError('missing accountId');
      const account = await existingAccount(ctx, accountId);
      const { store, config } = ctx;
      const meter = new UsageMeter({
        store,
        timeZone: config.timeZone,
        defaultQuota: config.fairUse.defaultQuota,
        flushMs: 60_000,
        counterTimeoutMs: 1000,
        log: pino({ level: 'silent' }),
        deprecatedTools: deprecatedToolKeys(
          config.connectors.map((c) => ({ id: c.id, tools: registry[c.key as ConnectorKey]?.descriptor.tools ?? [] })),
        ),
      });
      const now = new Date();
      // Another month is read as of its last day in the deployment's time zone.
      const [year, month] = (monthArg ?? '').split('-').map(Number);
      let at = monthArg === undefined || monthArg === meter.month(now) ? now : new Date(Date.UTC(year!, month!, 0, 12));
      if (meter.month(at) !== (monthArg ?? meter.month(now))) at = new Date(at.getTime() - 12 * 3600_000);
      ctx.print(await meter.usageRecord(account, at));
    },
  },
  {
    name: 'usage apply-spill',
    args: '[<file>]',
    summary: 'apply usage spill files (usage a stop during a database outage kept) once',
    details: [
      'Without <file>: every usage-spill-*.json of DATA_DIR. A gateway applies them itself at start; this is',
      'for a file moved from another replica, or to apply without a restart. Each batch is added under its',
      'id, so a file applied twice counts once; an applied file is removed.',
    ],
    run: async (ctx, args) => {
      const [file] = args;
      const paths = file === undefined ? spillFiles(ctx.config.dataDir) : [file];
      if (file !== undefined && !existsSync(file)) throw new NotFoundError(`no such spill file: ${file}`);
      const applied: { file: string; calls: number }[] = [];
      for (const path of paths) applied.push({ file: path, calls: await applySpill(path, ctx.store.usage) });
      const calls = applied.reduce((sum, a) => sum + a.calls, 0);
      if (applied.length > 0) await ctx.audit(null, 'usage.spill_apply', 'usage', { files: applied.length, calls });
      ctx.print(
        { files: applied, calls },
        applied.length === 0
          ? 'no usage spill file to apply'
          : applied.map((a) => `applied ${a.file}: ${a.calls} calls`).join('\n'),
      );
    },
  },
];
