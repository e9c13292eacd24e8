// API tokens of users, and the grants of assistants connected with OAuth
// (docs/decisions/mcp-authorization.md).
import { issueToken } from '#runtime/auth/caller-tokens.ts';
import { type AdminCommand, type CommandContext, flag, need, UsageError } from './command.ts';

/** Assistants connected with OAuth: who let which client reach which endpoints. */
async function listGrants(ctx: CommandContext, args: string[]): Promise<void> {
  // Never a code, token or hash: the grant holds none (its tokens are rows of their own).
  const accountId = flag(args, '--account');
  if (args.length > 0) throw new UsageError(`grants list takes no argument "${args[0]}" (the account goes with --account)`);
  if (accountId !== undefined && !(await ctx.store.accounts.getAccount(accountId))) throw new UsageError(`no account ${accountId}`);
  const emails = new Map<string, string | null>();
  const emailOf = async (userId: string) => {
    if (!emails.has(userId)) emails.set(userId, (await ctx.store.users.getUser(userId))?.email ?? null);
    return emails.get(userId)!;
  };
  const grants = await ctx.store.mcp.listMcpGrants(accountId);
  const listed = [];
  for (const x of grants) {
    listed.push({
      id: x.id,
      accountId: x.accountId,
      client: x.clientName,
      clientId: x.clientId,
      userId: x.userId,
      user: await emailOf(x.userId),
      endpoints: x.endpoints,
      createdAt: x.createdAt,
      revokedAt: x.revokedAt,
    });
  }
  ctx.print(listed);
}

export const TOKEN_COMMANDS: readonly AdminCommand[] = [
  {
    name: 'tokens issue',
    args: '<userId> [--label <label>]',
    summary: 'issues an API token for the user and prints it once',
    details: ['Its label is "cli" unless --label names one. The token is stored only as a hash: copy it now.'],
    run: async (ctx, args) => {
      const label = flag(args, '--label') ?? 'cli';
      const { token, record } = await issueToken(ctx.store, need(args, 1, 'userId')[0]!, label);
      await ctx.audit(await ctx.accountOfUser(record.userId), 'token.create', record.id, { label });
      ctx.print({ id: record.id, userId: record.userId, label: record.label });
      ctx.print(`token (shown once, stored only as a hash): ${token}`);
    },
  },
  {
    name: 'tokens list',
    args: '<userId>',
    summary: "lists the user's API tokens (never the tokens themselves)",
    run: async (ctx, args) => ctx.print((await ctx.store.tokens.listTokens(need(args, 1, 'userId')[0]!)).map(({ tokenHash: _h, ...t }) => t)),
  },
  {
    name: 'tokens revoke',
    args: '<tokenId>',
    summary: 'revokes an API token; calls with it are refused from then on',
    run: async (ctx, args) => {
      await ctx.store.tokens.revokeToken(need(args, 1, 'tokenId')[0]!, new Date());
      await ctx.audit((await ctx.store.tokens.getTokenOwner(args[0]!))?.accountId ?? null, 'token.revoke', args[0]!);
      ctx.print('revoked');
    },
  },
  {
    name: 'grants list',
    args: '[--account <accountId>]',
    summary: "assistants connected with OAuth (every account's without --account)",
    run: listGrants,
  },
  {
    name: 'grants revoke',
    args: '<grantId>',
    summary: 'revokes the grant and every token of it',
    run: async (ctx, args) => {
      const grantId = need(args, 1, 'grantId')[0]!;
      const grant = await ctx.store.mcp.getMcpGrant(grantId);
      if (!grant) throw new UsageError(`no grant ${grantId} (grants list shows them)`);
      // The grant's tokens are refused from now on (they are valid only while it is not revoked);
      // the change version moves, so every replica drops its cached access tokens.
      if (!(await ctx.store.mcp.revokeMcpGrant(grant.id, new Date()))) return ctx.print(`grant ${grant.id} was already revoked`);
      await ctx.audit(grant.accountId, 'oauth.grant.revoke', grant.id, {
        reason: 'admin',
        client: grant.clientName,
        client_id: grant.clientId,
        owner: (await ctx.store.users.getUser(grant.userId))?.email,
      });
      ctx.print(`revoked grant ${grant.id} (${grant.clientName}) and every token of it`);
    },
  },
];
