// API tokens of users, and the grants of assistants connected with OAuth
// (docs/decisions/mcp-authorization.md).
import { registry } from '#generated/registry.ts';
import { issueToken } from '#runtime/auth/caller-tokens.ts';
import { describeTokenScope, parseTokenScope, type ScopeCatalog } from '#runtime/auth/token-scope.ts';
import {
  type AdminCommand,
  type CommandContext,
  existingAccount,
  existingUser,
  flag,
  need,
  noMore,
  NotFoundError,
  UsageError,
} from './command.ts';

/** Every connector with its toolset ids: what a token scope may name. */
const scopeCatalog = (): ScopeCatalog =>
  new Map(Object.entries(registry).map(([key, m]) => [key, new Set(m.descriptor.toolsets.map((t) => t.id))]));

/** Assistants connected with OAuth: who let which client reach which endpoints. */
async function listGrants(ctx: CommandContext, args: string[]): Promise<void> {
  // Never a code, token or hash: the grant holds none (its tokens are rows of their own).
  const accountId = flag(args, '--account');
  if (args.length > 0)
    throw new UsageError(`grants list takes no argument "${args[0]}" (the account goes with --account)`);
  if (accountId !== undefined) await existingAccount(ctx, accountId);
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
    args: '<userId> [--label <label>] [--connectors a,b] [--toolsets <key>:<toolset>,…] [--read-only]',
    summary: 'issues an API token for the user (optionally scoped) and prints it once',
    details: [
      'Its label is "cli" unless --label names one. Prints {id, userId, label, scope, token}: the token is',
      'shown this once and stored only as a hash, so copy it now.',
      'A scope narrows what the token reaches, whatever the client asks for: --connectors (keys), --toolsets',
      '(pairs such as books:contacts), --read-only (only read-only tools). Without them the token reaches',
      "everything the user's seats allow (docs/decisions/mcp-authorization.md, 'Scopes on API tokens').",
    ],
    run: async (ctx, args) => {
      const label = flag(args, '--label') ?? 'cli';
      const connectors = flag(args, '--connectors');
      const toolsets = flag(args, '--toolsets');
      const readOnly = args.includes('--read-only');
      if (readOnly) args.splice(args.indexOf('--read-only'), 1);
      const scope = parseTokenScope({ connectors, toolsets, readOnly }, scopeCatalog());
      if (scope !== null && 'error' in scope) throw new UsageError(scope.error);
      const user = await existingUser(ctx, need(args, 1, 'userId')[0]!);
      noMore(args, 1);
      const { token, record } = await issueToken(ctx.store, user.id, label, undefined, scope);
      await ctx.audit(user.accountId, 'token.create', record.id, { label, scope: describeTokenScope(scope) });
      ctx.note('the token is shown once and stored only as a hash: copy it now');
      ctx.print({ id: record.id, userId: record.userId, label: record.label, scope: record.scope, token });
    },
  },
  {
    name: 'tokens list',
    args: '<userId>',
    summary: "lists the user's API tokens (never the tokens themselves)",
    run: async (ctx, args) => {
      const user = await existingUser(ctx, need(args, 1, 'userId')[0]!);
      ctx.print((await ctx.store.tokens.listTokens(user.id)).map(({ tokenHash: _h, ...t }) => t));
    },
  },
  {
    name: 'tokens revoke',
    args: '<tokenId>',
    summary: 'revokes an API token; calls with it are refused from then on',
    run: async (ctx, args) => {
      const tokenId = need(args, 1, 'tokenId')[0]!;
      const owner = await ctx.store.tokens.getTokenOwner(tokenId);
      if (!owner) throw new NotFoundError(`no such token ${tokenId} (tokens list <userId> shows them)`);
      await ctx.store.tokens.revokeToken(tokenId, new Date());
      await ctx.audit(owner.accountId, 'token.revoke', tokenId);
      ctx.print({ tokenId, revoked: true }, `revoked token ${tokenId}`);
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
      if (!grant) throw new NotFoundError(`no such grant ${grantId} (grants list shows them)`);
      // The grant's tokens are refused from now on (they are valid only while it is not revoked);
      // the change version moves, so every replica drops its cached access tokens.
      if (!(await ctx.store.mcp.revokeMcpGrant(grant.id, new Date())))
        return ctx.print(
          { grantId: grant.id, revoked: false, alreadyRevoked: true },
          `grant ${grant.id} was already revoked`,
        );
      await ctx.audit(grant.accountId, 'oauth.grant.revoke', grant.id, {
        reason: 'admin',
        client: grant.clientName,
        client_id: grant.clientId,
        owner: (await ctx.store.users.getUser(grant.userId))?.email,
      });
      ctx.print(
        { grantId: grant.id, revoked: true, client: grant.clientName },
        `revoked grant ${grant.id} (${grant.clientName}) and every token of it`,
      );
    },
  },
];
