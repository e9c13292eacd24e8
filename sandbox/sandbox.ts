// The one shape every sandbox exports from `sandbox/<connector>/index.ts`, so the demo, the start
// banner and the tests loop over sandboxes instead of naming them. A sandbox knows only its
// upstream's wire format: how the gateway is configured to reach it is the caller's business.
export interface SandboxExample {
  /** Bare tool name (served as `<instance>__<tool>`). */
  readonly tool: string;
  readonly args: Readonly<Record<string, unknown>>;
}

export interface RunningSandbox {
  /** The upstream base URL the gateway calls. */
  readonly url: string;
  /** The deployment-wide credential of a managed connector (the register's HTTP Basic account). */
  readonly managedCredential?: { readonly username: string; readonly password: string };
  /** A tenant's connection credential (the fields of the connect form), for connectors with a connect step. */
  readonly tenantCredential?: Readonly<Record<string, string>>;
  /**
   * The integrator's application secret the upstream takes beside every tenant's credential (a
   * deployment setting, `CONNECTOR_<KEY>_APP_SECRET_TOKEN`), for connectors whose spec says `appSecret`.
   */
  readonly appSecret?: string;
  /**
   * An OAuth upstream's sandbox identity provider: what the gateway is configured with
   * (`CONNECTOR_<KEY>_OAUTH_*`), the gateway's callback to register once it listens, and a grant
   * for the demo tenant (what a completed consent would give, without a browser).
   */
  readonly oauth?: {
    readonly baseUrl: string;
    readonly clientId: string;
    readonly clientSecret: string;
    register(redirectUri: string): void;
    demoGrant(): {
      readonly accessToken: string;
      readonly refreshToken?: string;
      readonly expiresAt: number;
      readonly scope: string;
    };
  };
  close(): Promise<void>;
}

export interface Sandbox {
  /** The connector (spec file stem) whose upstream this sandbox fakes. */
  readonly connector: string;
  readonly title: string;
  /** Calls worth trying first against the demo data (the start banner prints them). */
  readonly examples: readonly SandboxExample[];
  start(options: { readonly host: string; readonly port: number }): Promise<RunningSandbox>;
}

export function isSandbox(value: unknown): value is Sandbox {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Record<string, unknown>;
  return (
    typeof v.connector === 'string' &&
    typeof v.title === 'string' &&
    Array.isArray(v.examples) &&
    typeof v.start === 'function'
  );
}

/**
 * A folder under sandbox/ that serves other sandboxes rather than faking one connector's upstream
 * (the identity provider) exports `sandboxHelper` (a short description) instead of `sandbox`.
 */
export function isSandboxHelper(value: unknown): value is string {
  return typeof value === 'string' && value !== '';
}
