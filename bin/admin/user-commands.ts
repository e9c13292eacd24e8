// A user's lifecycle from the CLI: removal (sessions, API tokens, OAuth grants and seats end at
// once), an invitation sent again and a password reset, both by mail (runtime/mail/): SMTP_URL, or
// the data directory's outbox. The links go into the mail only; the CLI prints where it went.
import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import pino from 'pino';
import { platformDescriptor } from '#generated/platform/descriptor.ts';
import { createMailer, type MailMessage } from '#runtime/mail/mailer.ts';
import { invitationMail, passwordResetMail } from '#runtime/mail/messages.ts';
import { sha256Hex } from '#runtime/secrets/hash.ts';
import type { User } from '#runtime/store/store.ts';
import {
  type AdminCommand,
  type CommandContext,
  CommandError,
  confirmed,
  existingUser,
  need,
  noMore,
  RefusedError,
} from './command.ts';

/** A new set-password link of the user, valid for `validSeconds`. */
async function passwordLink(ctx: CommandContext, userId: string, validSeconds: number): Promise<string> {
  const token = randomBytes(32).toString('base64url');
  await ctx.store.portal.createPasswordLink({
    tokenHash: sha256Hex(token),
    userId,
    expiresAt: new Date(Date.now() + validSeconds * 1000),
  });
  return `${ctx.config.publicBaseUrl}/portal/set-password/${token}`;
}

/**
 * Sends one mail as configured; a failure fails the command with the mailer's reason (the server's
 * answer, never the link or the SMTP password), also over the admin socket.
 */
async function mail(ctx: CommandContext, build: (link: string) => MailMessage, link: string) {
  const reasons: string[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      const line = JSON.parse(String(chunk)) as { err?: { message?: string } };
      if (line.err?.message) reasons.push(line.err.message);
      done();
    },
  });
  const mailer = createMailer(ctx.config, pino({ level: 'warn' }, sink));
  try {
    if (!(await mailer.send(build(link))))
      throw new CommandError(`the mail could not be sent: ${reasons.join('; ') || 'no reason given'}`);
    return mailer.via === 'smtp' ? `by ${mailer.where}` : `to the outbox ${mailer.where}`;
  } finally {
    mailer.close();
  }
}

async function accountName(ctx: CommandContext, user: User): Promise<string> {
  return (await ctx.store.accounts.getAccount(user.accountId))?.name ?? user.accountId;
}

export const USER_COMMANDS: readonly AdminCommand[] = [
  {
    name: 'users remove',
    args: '<userId> --yes',
    summary: 'removes the user: their sessions, API tokens, OAuth grants and seats end at once',
    details: [
      "Running gateways refuse the removed user's tokens at their next call. It cannot be undone: --yes confirms it.",
      'The last administrator of an account cannot be removed.',
    ],
    run: async (ctx, args) => {
      confirmed(args, 'removing a user with their sessions, tokens, grants and seats');
      const userId = need(args, 1, 'userId')[0]!;
      noMore(args, 1);
      const user = await existingUser(ctx, userId);
      const admins = (await ctx.store.users.listUsers(user.accountId)).filter((u) => u.role === 'admin');
      if (user.role === 'admin' && admins.length === 1)
        throw new RefusedError(
          `${user.email} is the last administrator of ${user.accountId}: make another user admin first`,
        );
      const removed = await ctx.store.users.deleteUser(userId);
      if (!removed) throw new RefusedError(`${userId} was removed meanwhile`);
      await ctx.audit(user.accountId, 'user.remove', userId, { email: user.email, ...removed });
      ctx.print(
        { removed: { userId, email: user.email, ...removed } },
        `removed ${user.email}: ${removed.sessions} session(s), ${removed.tokens} token(s), ${removed.grants} ` +
          `OAuth grant(s), ${removed.seats} seat(s) ended`,
      );
    },
  },
  {
    name: 'users invite',
    args: '<userId>',
    summary: 'mails the user an invitation with a new set-password link',
    details: [
      'By SMTP_URL, or into <DATA_DIR>/outbox without it. The link is not printed (users invite-link prints one).',
    ],
    run: async (ctx, args) => {
      const user = await existingUser(ctx, need(args, 1, 'userId')[0]!);
      noMore(args, 1);
      const link = await passwordLink(ctx, user.id, platformDescriptor.limits.passwordLinkValidSeconds);
      const account = await accountName(ctx, user);
      const where = await mail(ctx, (l) => invitationMail(platformDescriptor, user, { account, link: l }), link);
      await ctx.audit(user.accountId, 'user.invite_resend', user.id, { email: user.email, mailed: true });
      ctx.print({ userId: user.id, email: user.email, mailed: where }, `invitation mailed to ${user.email} ${where}`);
    },
  },
  {
    name: 'users reset-password',
    args: '<userId>',
    summary: 'mails the user a link that sets a new portal password',
    details: ['The link works once and expires; the current password stays until it is used.'],
    run: async (ctx, args) => {
      const user = await existingUser(ctx, need(args, 1, 'userId')[0]!);
      noMore(args, 1);
      const link = await passwordLink(ctx, user.id, platformDescriptor.limits.passwordResetValidSeconds);
      const where = await mail(ctx, (l) => passwordResetMail(platformDescriptor, user, l), link);
      await ctx.audit(user.accountId, 'user.password_reset', user.id, { email: user.email, via: 'cli' });
      ctx.print(
        { userId: user.id, email: user.email, mailed: where },
        `password reset mailed to ${user.email} ${where}`,
      );
    },
  },
];
