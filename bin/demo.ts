// The demo tenant of the embedded default: one account with an admin who accepted the terms,
// subscriptions and seats on every enabled connector, and connections to the sandboxes. Idempotent:
// a second start finds the same tenant and token.
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { envName, type GatewayConfig } from '#runtime/config/settings.ts';
import type { Repositories } from '#runtime/store/store.ts';
import type { Vault } from '#runtime/secrets/vault.ts';
import { issueToken, tokenHash } from '#runtime/auth/caller-tokens.ts';
import { hashPassword } from '#runtime/portal/session.ts';
import { describeSmtpUrl, OUTBOX_DIR } from '#runtime/mail/mailer.ts';
import type { SandboxSet } from '../sandbox/index.ts';

export const DEMO_ACCOUNT_ID = 'acc_demo';
export const DEMO_USER_ID = 'usr_demo';
export const DEMO_EMAIL = 'demo@example.com';
/** The demo administrator's portal password, printed in the banner (set once; a changed one is kept). */
export const DEMO_PASSWORD = 'Demo-portal-2026';

export interface DemoTenant {
  readonly accountId: string;
  readonly userId: string;
  readonly token: string;
}

export async function seedDemoTenant(
  store: Pick<Repositories, 'accounts' | 'users' | 'tokens' | 'connections' | 'portal'>,
  vault: Vault,
  config: GatewayConfig,
  tenantCredentials: Readonly<Record<string, Readonly<Record<string, unknown>>>>,
): Promise<DemoTenant> {
  if (!(await store.accounts.getAccount(DEMO_ACCOUNT_ID)))
    await store.accounts.createAccount({ id: DEMO_ACCOUNT_ID, name: 'Demo ApS' });
  if (!(await store.users.getUser(DEMO_USER_ID)))
    await store.users.createUser({
      id: DEMO_USER_ID,
      accountId: DEMO_ACCOUNT_ID,
      email: DEMO_EMAIL,
      name: 'Demo Admin',
      role: 'admin',
    });
  const user = (await store.users.getUser(DEMO_USER_ID))!;
  if (!user.termsAcceptedAt) await store.users.acceptTerms(DEMO_USER_ID, new Date());
  if (!(await store.portal.getPasswordHash(DEMO_USER_ID)))
    await store.portal.setPasswordHash(DEMO_USER_ID, await hashPassword(DEMO_PASSWORD));
  for (const c of config.connectors.filter((x) => x.enabled)) {
    await store.accounts.setSubscription(DEMO_ACCOUNT_ID, c.key, true);
    await store.users.setSeat(DEMO_USER_ID, c.key, true);
    const credential = tenantCredentials[c.key];
    if (credential) {
      const sealed = vault.seal(JSON.stringify(credential), DEMO_ACCOUNT_ID, c.id);
      await store.connections.putConnection({
        accountId: DEMO_ACCOUNT_ID,
        instanceId: c.id,
        connectorKey: c.key,
        ...sealed,
      });
    }
  }
  // The demo token is kept in the data directory (mode 0600) so every start prints the same one.
  const tokenFile = join(config.dataDir, 'demo-token');
  if (existsSync(tokenFile)) {
    const token = readFileSync(tokenFile, 'utf8').trim();
    const found = await store.tokens.findByTokenHash(tokenHash(token));
    if (found && found.user.id === DEMO_USER_ID) return { accountId: DEMO_ACCOUNT_ID, userId: DEMO_USER_ID, token };
  }
  const { token } = await issueToken(store, DEMO_USER_ID, 'demo');
  writeFileSync(tokenFile, `${token}\n`, { mode: 0o600 });
  chmodSync(tokenFile, 0o600);
  return { accountId: DEMO_ACCOUNT_ID, userId: DEMO_USER_ID, token };
}

/** How the gateway reaches the started sandboxes: the same settings an operator would give it. */
export function sandboxEnv(sandboxes: SandboxSet): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, { running }] of sandboxes.started) {
    env[`CONNECTOR_${envName(key)}_BASE_URL`] = running.url;
    if (running.appSecret) env[`CONNECTOR_${envName(key)}_APP_SECRET_TOKEN`] = running.appSecret;
    if (running.managedCredential) {
      env[`${envName(key)}_USERNAME`] = running.managedCredential.username;
      env[`${envName(key)}_PASSWORD`] = running.managedCredential.password;
    }
    if (running.oauth) {
      env[`CONNECTOR_${envName(key)}_OAUTH_BASE_URL`] = running.oauth.baseUrl;
      env[`CONNECTOR_${envName(key)}_OAUTH_CLIENT_ID`] = running.oauth.clientId;
      env[`CONNECTOR_${envName(key)}_OAUTH_CLIENT_SECRET`] = running.oauth.clientSecret;
    }
  }
  return env;
}

/**
 * The demo tenant's connection credentials, by connector key. An OAuth sandbox first learns the
 * gateway's callback (`redirectUri`, so other accounts can connect through its consent page), then
 * grants the demo tenant as a completed consent would.
 */
export function sandboxTenantCredentials(
  sandboxes: SandboxSet,
  redirectUri?: string,
): Record<string, Record<string, unknown>> {
  const out: Record<string, Record<string, unknown>> = {};
  for (const [key, { running }] of sandboxes.started) {
    if (running.tenantCredential) out[key] = { ...running.tenantCredential };
    else if (running.oauth && redirectUri) {
      running.oauth.register(redirectUri);
      out[key] = { ...running.oauth.demoGrant() };
    }
  }
  return out;
}

/** What `npm start` prints: endpoints, the demo token, and copy-paste commands for each sandbox's examples. */
export function banner(config: GatewayConfig, url: string, token: string, sandboxes: SandboxSet): string {
  const enabled = config.connectors.filter((c) => c.enabled);
  const mcpUrl = (id: string) => `${url}/${id}/mcp`;
  const auth = `--header "Authorization: Bearer ${token}"`;
  const shellArg = (name: string, value: unknown) => {
    // The Inspector CLI reads a --tool-arg value as JSON when it parses: a string such as "2025"
    // or "true" would arrive as a number or boolean, so it is printed JSON-quoted.
    const parsesAsOther = (text: string) => {
      try {
        return typeof JSON.parse(text) !== 'string';
      } catch {
        return false;
      }
    };
    const text = typeof value === 'string' && !parsesAsOther(value) ? value : JSON.stringify(value);
    const arg = `${name}=${text}`;
    return /^[\w=.:/@-]+$/u.test(arg) ? arg : `'${arg.replace(/'/g, "'\\''")}'`;
  };
  const examples = enabled.flatMap((c) =>
    (sandboxes.started.get(c.key)?.sandbox.examples ?? []).map(
      (e) =>
        `  npx @modelcontextprotocol/inspector --cli ${mcpUrl(c.id)} --transport http ${auth} ` +
        `--method tools/call --tool-name ${c.id}__${e.tool} ` +
        Object.entries(e.args)
          .map(([k, v]) => `--tool-arg ${shellArg(k, v)}`)
          .join(' '),
    ),
  );
  const first = enabled.find((c) => sandboxes.started.has(c.key)) ?? enabled[0]!;
  const lines = [
    '',
    'Connector gateway is running (embedded database, sandbox upstreams, demo tenant).',
    '',
    'MCP endpoints (POST, Authorization: Bearer <token>):',
    ...enabled.map((c) => {
      const note = sandboxes.started.has(c.key)
        ? ''
        : '   (no sandbox: answers with its texts until an upstream is configured)';
      return `  ${c.key.padEnd(10)} ${mcpUrl(c.id)}${note}`;
    }),
    '',
    `Demo token (account ${DEMO_ACCOUNT_ID}, user ${DEMO_EMAIL}): ${token}`,
    '',
    `Portal: ${url}/portal — sign in as ${DEMO_EMAIL} with the password ${DEMO_PASSWORD} (the demo administrator)`,
    'Admin CLI while the gateway runs: npm run admin -- help   (it ' +
      `talks to this process over ${config.dataDir}/admin.sock)`,
    config.smtpUrl
      ? `Mail (invitations, password resets, reconnect and quota notices) goes by ${describeSmtpUrl(config.smtpUrl)}`
      : `Mail (invitations, password resets, reconnect and quota notices) is kept in the local outbox, one .eml ` +
        `file per mail (set SMTP_URL to send it): ${join(config.dataDir, OUTBOX_DIR)}`,
    '',
    'Try it with the MCP Inspector CLI:',
    `  npx @modelcontextprotocol/inspector --cli ${mcpUrl(first.id)} --transport http ${auth} --method tools/list`,
    ...examples,
    '',
    'Claude Code:',
    `  claude mcp add --transport http ${first.id} ${mcpUrl(first.id)} ${auth}`,
    '',
    'Client configuration (Claude Desktop, Cursor, … — any client with streamable HTTP):',
    JSON.stringify(
      {
        mcpServers: {
          [first.id]: { type: 'http', url: mcpUrl(first.id), headers: { Authorization: `Bearer ${token}` } },
        },
      },
      null,
      2,
    )
      .split('\n')
      .map((l) => `  ${l}`)
      .join('\n'),
    '',
    `Usage: curl -H "Authorization: Bearer ${token}" ${url}/api/usage`,
    `Sandboxes: ${[...sandboxes.started].map(([k, s]) => `${k} ${s.running.url}`).join(', ')}`,
    'Stop with Ctrl+C.',
    '',
  ];
  return lines.join('\n');
}
