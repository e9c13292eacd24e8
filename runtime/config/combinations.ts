// Settings that only make sense together are refused alone, and a setting a connector does not
// read is refused like an unknown one (docs/decisions/operations.md, 'Settings that only make sense
// together are refused alone'). Each check names the settings in both spellings (variable, file key).
// Each check answers the refusal's text (config.ts throws it as a ConfigError), or undefined.

/** What loadConfig read for one connector, before it drops what the connector does not use. */
export interface ConnectorSettingsRead {
  readonly key: string;
  /** The connector key as in variable names (REGISTER for register). */
  readonly envKey: string;
  /** The spec's credential kind (managed_basic, oauth2, …). */
  readonly credential: string;
  readonly username: unknown;
  readonly password: unknown;
  readonly oauth: { readonly clientId?: unknown; readonly clientSecret?: unknown; readonly baseUrl?: unknown };
}

const OAUTH_NAMES = { clientId: 'CLIENT_ID', clientSecret: 'CLIENT_SECRET', baseUrl: 'BASE_URL' } as const;

export function checkConnectorCombinations(c: ConnectorSettingsRead): string | undefined {
  const user = `${c.envKey}_USERNAME (connectors.${c.key}.managedCredential.username)`;
  const password = `${c.envKey}_PASSWORD (connectors.${c.key}.managedCredential.password)`;
  if (c.credential === 'managed_basic') {
    if (c.password !== undefined && c.username === undefined)
      return `${password} is set without ${user}; set both or neither`;
    if (c.username !== undefined && c.password === undefined)
      return `${user} is set without ${password}; set both or neither`;
  } else if (c.username !== undefined || c.password !== undefined) {
    // Only the file spelling reaches here for connectors without a managed account (their bare
    // <KEY>_USERNAME variable is not read, so it cannot be told from an unrelated one).
    return `unknown setting connectors.${c.key}.managedCredential: the ${c.key} connector uses no deployment account`;
  }
  for (const [name, suffix] of Object.entries(OAUTH_NAMES) as [keyof typeof OAUTH_NAMES, string][]) {
    if (c.oauth[name] === undefined) continue;
    const setting = `CONNECTOR_${c.envKey}_OAUTH_${suffix} (connectors.${c.key}.oauth.${name})`;
    if (c.credential !== 'oauth2')
      return `unknown setting ${setting}: the ${c.key} connector does not use OAuth and does not read it`;
    if (name !== 'clientId' && c.oauth.clientId === undefined)
      return (
        `${setting} is set without CONNECTOR_${c.envKey}_OAUTH_CLIENT_ID ` +
        `(connectors.${c.key}.oauth.clientId); set the client id too`
      );
  }
  return undefined;
}

/** Deployment-wide pairs: a setting that only refines another one. */
export function checkDeploymentCombinations(read: {
  readonly redisUrl: unknown;
  readonly redisPrefix: unknown;
}): string | undefined {
  return read.redisPrefix !== undefined && read.redisUrl === undefined
    ? 'REDIS_PREFIX (redisPrefix) is set without REDIS_URL (redisUrl); it names the keys in that Redis'
    : undefined;
}
