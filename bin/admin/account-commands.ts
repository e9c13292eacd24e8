// Accounts, their users, portal sessions, the audit log and the terms.
import { randomBytes } from 'node:crypto';
import { platformDescriptor } from '#generated/platform/descriptor.ts';
import { sha256Hex } from '#runtime/secrets/hash.ts';
import { demotesLastAdmin } from '#runtime/portal/account-rules.ts';
import {
  type AdminCommand,
  confirmed,
  EMAIL,
  existingAccount,
  existingUser,
  flag,
  need,
  noMore,
  RefusedError,
  UsageError,
} from './command.ts';

export const ACCOUNT_COMMANDS: readonly AdminCommand[] = [
  {
    name: 'accounts list',
    args: '',
    summary: 'lists every account',
    run: async (ctx) => ctx.print(await ctx.store.accounts.listAccounts()),
  },
  {
    name: 'accounts create',
    args: '<name>',
    summary: 'creates an account and prints it (with its id)',
    run: async (ctx, args) => {
      const name = need(args, 1, 'name').join(' ').trim();
      if (name === '') throw new UsageError('the name is empty');
      const account = await ctx.store.accounts.createAccount({ name });
      await ctx.audit(account.id, 'account.create', account.id, { name: account.name });
      ctx.print(account);
    },
  },
  {
    name: 'accounts delete',
    args: '<accountId> --yes',
    summary: 'deletes the account with its users, tokens and connections',
    details: ['It cannot be undone: --yes confirms it.'],
    run: async (ctx, args) => {
      confirmed(args, 'deleting an account with its users, tokens and connections');
      const accountId = need(args, 1, 'accountId')[0]!;
      noMore(args, 1);
      const account = await existingAccount(ctx, accountId);
      await ctx.store.accounts.deleteAccount(accountId);
      await ctx.audit(accountId, 'account.delete', accountId);
      ctx.print({ deleted: { accountId, name: account.name } }, `deleted account ${accountId} (${account.name})`);
    },
  },
  {
    name: 'users list',
    args: '<accountId>',
    summary: "lists the account's users",
    run: async (ctx, args) => {
      const account = await existingAccount(ctx, need(args, 1, 'accountId')[0]!);
      ctx.print(await ctx.store.users.listUsers(account.id));
    },
  },
  {
    name: 'users create',
    args: '<accountId> <email> <name> [--role admin|member]',
    summary: 'adds a user to the account (a member unless --role admin)',
    details: ['The user signs in to the portal after setting a password: see users invite-link.'],
    run: async (ctx, args) => {
      const role = (flag(args, '--role') ?? 'member') as 'admin' | 'member';
      if (role !== 'admin' && role !== 'member') throw new UsageError('--role is admin or member');
      const [accountId, email, ...name] = need(args, 3, 'accountId, email and name');
      if (!EMAIL.test(email!)) throw new UsageError(`"${email}" is not an email address (name@example.com)`);
      await existingAccount(ctx, accountId!);
      const user = await ctx.store.users.createUser({
        accountId: accountId!,
        email: email!,
        name: name.join(' '),
        role,
      });
      await ctx.audit(accountId!, 'user.create', user.id, { email: user.email, role });
      ctx.print(user);
    },
  },
  {
    name: 'users invite-link',
    args: '<userId>',
    summary: "prints a single-use link that sets the user's portal password",
    run: async (ctx, args) => {
      const userId = need(args, 1, 'userId')[0]!;
      const user = await existingUser(ctx, userId);
      const token = randomBytes(32).toString('base64url');
      const validSeconds = platformDescriptor.limits.passwordLinkValidSeconds;
      await ctx.store.portal.createPasswordLink({
        tokenHash: sha256Hex(token),
        userId,
        expiresAt: new Date(Date.now() + validSeconds * 1000),
      });
      await ctx.audit(user.accountId, 'user.password_link', userId, { email: user.email });
      const link = `${ctx.config.publicBaseUrl}/portal/set-password/${token}`;
      ctx.print(
        { userId, email: user.email, link, validDays: Math.round(validSeconds / 86400) },
        `set-password link for ${user.email} (single use, valid ${Math.round(validSeconds / 86400)} days): ${link}`,
      );
    },
  },
  {
    name: 'users set-role',
    args: '<userId> admin|member',
    summary: "changes the user's role in the account",
    run: async (ctx, args) => {
      const [userId, role] = need(args, 2, 'userId and admin|member');
      if (role !== 'admin' && role !== 'member') throw new UsageError('the role is admin or member');
      const user = await existingUser(ctx, userId!);
      // The portal's rule (runtime/portal/account-rules.ts): someone must be able to manage the account.
      if (demotesLastAdmin(await ctx.store.users.listUsers(user.accountId), user, role))
        throw new RefusedError(
          `${user.email} is the last administrator of ${user.accountId}: make another user admin first`,
        );
      await ctx.store.users.setUserRole(userId!, role);
      await ctx.audit(user.accountId, 'user.role', userId!, { email: user.email, role });
      ctx.print(
        { userId: user.id, email: user.email, role },
        `${user.email} is now ${role === 'admin' ? 'an admin' : 'a member'}`,
      );
    },
  },
  {
    name: 'sessions end',
    args: '<userId>',
    summary: 'signs the user out of the portal everywhere',
    run: async (ctx, args) => {
      const user = await existingUser(ctx, need(args, 1, 'userId')[0]!);
      const ended = await ctx.store.portal.deleteUserSessions(user.id);
      await ctx.audit(user.accountId, 'session.sign_out_everywhere', user.id, { sessions: ended });
      ctx.print({ userId: user.id, ended }, `ended ${ended} portal session(s)`);
    },
  },
  {
    name: 'audit list',
    args: '<accountId> [--limit <n>]',
    summary: "the account's audit log, newest first",
    details: ['--limit is the number of entries, from 1 to 10000 (50 without it).'],
    run: async (ctx, args) => {
      const limit = Number(flag(args, '--limit') ?? '50');
      if (!Number.isInteger(limit) || limit < 1 || limit > 10_000)
        throw new UsageError('--limit is an integer from 1 to 10000');
      const account = await existingAccount(ctx, need(args, 1, 'accountId')[0]!);
      ctx.print(await ctx.store.audit.listAudit(account.id, limit));
    },
  },
  {
    name: 'terms accept',
    args: '<userId>',
    summary: 'records that the user accepted the terms (needed before connecting)',
    run: async (ctx, args) => {
      const user = await existingUser(ctx, need(args, 1, 'userId')[0]!);
      const at = new Date();
      await ctx.store.users.acceptTerms(user.id, at);
      await ctx.audit(user.accountId, 'terms.accept', user.id);
      ctx.print({ userId: user.id, acceptedAt: at.toISOString() }, 'accepted');
    },
  },
];
