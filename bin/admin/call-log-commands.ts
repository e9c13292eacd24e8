// The call log and the daily usage of an account (docs/decisions/portal.md, 'The call log keeps no
// arguments or results' and 'Usage by day, endpoint instance and user'): what the portal's Calls
// and Usage pages show, for the operator.
import { localMonth } from '#runtime/handler-api/calendar.ts';
import { CALL_OUTCOMES, type CallLogFilter, type CallOutcome } from '#runtime/store/call-log.ts';
import { type AdminCommand, existingAccount, flag, MONTH, need, noMore, UsageError } from './command.ts';

export const CALL_LOG_COMMANDS: readonly AdminCommand[] = [
  {
    name: 'calls list',
    args: '<accountId> [--instance <id>] [--tool <name>] [--outcome ok|error|refused] [--user <userId>] [--limit <n>]',
    summary: "the account's call log, newest first (never arguments or results)",
    details: [
      'One entry per tools/call kept for CALL_LOG_DAYS days: time, endpoint instance, tool, outcome class and',
      'code, user, token id and label, duration. --limit is from 1 to 10000 (50 without it).',
    ],
    run: async (ctx, args) => {
      const filter: { -readonly [K in keyof CallLogFilter]: CallLogFilter[K] } = {};
      const instance = flag(args, '--instance');
      const tool = flag(args, '--tool');
      const outcome = flag(args, '--outcome');
      const user = flag(args, '--user');
      const limit = Number(flag(args, '--limit') ?? '50');
      if (!Number.isInteger(limit) || limit < 1 || limit > 10_000)
        throw new UsageError('--limit is an integer from 1 to 10000');
      if (outcome !== undefined && !(CALL_OUTCOMES as readonly string[]).includes(outcome))
        throw new UsageError(`--outcome is one of ${CALL_OUTCOMES.join(', ')}, got "${outcome}"`);
      if (instance !== undefined) filter.instanceId = instance;
      if (tool !== undefined) filter.tool = tool;
      if (outcome !== undefined) filter.outcome = outcome as CallOutcome;
      if (user !== undefined) filter.userId = user;
      noMore(need(args, 1, 'accountId'), 1);
      const account = await existingAccount(ctx, args[0]!);
      ctx.print(await ctx.store.callLog.listCalls(account.id, filter, limit, 0));
    },
  },
  {
    name: 'usage daily',
    args: '<accountId> [--month YYYY-MM]',
    summary: "the account's metered calls by day, endpoint instance and user in a month",
    details: ['Without --month: the current billing month. Refused calls are not counted.'],
    run: async (ctx, args) => {
      const month = flag(args, '--month');
      if (month !== undefined && !MONTH.test(month))
        throw new UsageError(`--month is YYYY-MM with a month from 01 to 12, got "${month}"`);
      noMore(need(args, 1, 'accountId'), 1);
      const account = await existingAccount(ctx, args[0]!);
      const current = localMonth(new Date(), ctx.config.timeZone);
      ctx.print(await ctx.store.callLog.dailyUsage(account.id, month ?? current));
    },
  },
];
