// What an account pays for and uses: subscriptions, seats, the fair-use policy and usage.
import pino from 'pino';
import type { FairUseMode } from '#runtime/platform/store.ts';
import { UsageMeter } from '#runtime/platform/usage.ts';
import { type AdminCommand, CONNECTOR_KEYS_LINE, connectorKey, flag, MONTH, need, onOff, UsageError } from './command.ts';

export const SUBSCRIPTION_COMMANDS: readonly AdminCommand[] = [
  {
    name: 'subscriptions list',
    args: '<accountId>',
    summary: 'the connectors the account is subscribed to',
    run: async (ctx, args) => ctx.print(await ctx.store.accounts.listSubscriptions(need(args, 1, 'accountId')[0]!)),
  },
  {
    name: 'subscriptions set',
    args: '<accountId> <connector> on|off',
    summary: 'subscribes the account to a connector, or ends the subscription',
    details: [CONNECTOR_KEYS_LINE],
    run: async (ctx, args) => {
      const [accountId, key, state] = need(args, 3, 'accountId, connector and on|off');
      await ctx.store.accounts.setSubscription(accountId!, connectorKey(key!), onOff(state));
      await ctx.audit(accountId!, 'subscription.set', key!, { subscribed: state });
      ctx.print('ok');
    },
  },
  {
    name: 'seats list',
    args: '<userId>',
    summary: 'the connectors the user holds a seat of',
    run: async (ctx, args) => ctx.print(await ctx.store.users.listSeats(need(args, 1, 'userId')[0]!)),
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
      const user = await ctx.store.users.getUser(userId!);
      if (!user) throw new UsageError(`no user ${userId}`);
      if (on && !(await ctx.store.accounts.listSubscriptions(user.accountId)).includes(connector)) {
        throw new UsageError(`account ${user.accountId} is not subscribed to ${connector}: run ` + `"subscriptions set ${user.accountId} ${connector} on" first`);
      }
      await ctx.store.users.setSeat(userId!, connector, on);
      await ctx.audit(user.accountId, 'seats.set', user.accountId, { changes: `${user.email}:${connector}:${on ? 'on' : 'off'}` });
      ctx.print('ok');
    },
  },
  {
    name: 'fair-use set',
    args: '<accountId> [--mode off|soft|hard] [--quota <n>|default]',
    summary: "sets the account's fair-use mode or monthly quota",
    details: ['--quota default goes back to the deployment default quota.'],
    run: async (ctx, args) => {
      const mode = flag(args, '--mode') as FairUseMode | undefined;
      const quotaArg = flag(args, '--quota');
      if (mode && !['off', 'soft', 'hard'].includes(mode)) throw new UsageError('--mode is off, soft or hard');
      const quota = quotaArg === undefined ? undefined : quotaArg === 'default' ? null : Number(quotaArg);
      if (quota !== undefined && quota !== null && (!Number.isInteger(quota) || quota < 0)) throw new UsageError('--quota is a non-negative integer or "default"');
      await ctx.store.accounts.setFairUse(need(args, 1, 'accountId')[0]!, { ...(mode ? { mode } : {}), ...(quota !== undefined ? { quota } : {}) });
      await ctx.audit(args[0]!, 'fair_use.set', args[0]!, { mode, quota: quota === null ? 'default' : quota });
      ctx.print('ok');
    },
  },
  {
    name: 'usage',
    args: '<accountId> [--month YYYY-MM]',
    summary: "the account's calls this month (or the month given) and its fair-use state",
    run: async (ctx, words) => {
      // The account id is the word right after "usage"; the flags come after it.
      const [accountId, ...args] = words;
      const monthArg = flag(args, '--month');
      if (monthArg !== undefined && !MONTH.test(monthArg)) throw new UsageError(`--month is YYYY-MM with a month from 01 to 12, got "${monthArg}"`);
      if (!accountId) throw new UsageError('missing accountId');
      const account = await ctx.store.accounts.getAccount(accountId);
      if (!account) throw new UsageError(`no account ${accountId}`);
      const { store, config } = ctx;
      const meter = new UsageMeter({ store, timeZone: config.timeZone, defaultQuota: config.fairUse.defaultQuota, flushMs: 60_000, counterTimeoutMs: 1000, log: pino({ level: 'silent' }) });
      if (monthArg) return ctx.print(await store.usage.getUsage(accountId, monthArg));
      ctx.print(await meter.usageRecord(account, new Date()));
    },
  },
];
