// The identity provider's switches (global or per client) and the check of a client registration.
import { IDENTITY_STYLES } from './styles.ts';
import type { IdentityStyle } from './styles.ts';
import type { IdentitySwitches } from './types.ts';

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function defaultSwitches(): IdentitySwitches {
  return {
    autoApprove: false,
    subject: null,
    accessTokenLifetimeSeconds: null,
    omitRefreshToken: false,
    extraScopes: [],
    dropScopes: [],
    tokenDelayMs: 0,
    tokenServerError: null,
    invalidClient: false,
    refreshError: null,
  };
}

export const isStringList = (v: unknown): boolean =>
  Array.isArray(v) && v.every((s) => typeof s === 'string' && s.length > 0);
export const isInt = (min: number, max: number) => (v: unknown) =>
  Number.isSafeInteger(v) && (v as number) >= min && (v as number) <= max;

export const SWITCH_CHECKS: { [K in keyof IdentitySwitches]: (value: unknown) => boolean } = {
  autoApprove: (v) => typeof v === 'boolean',
  subject: (v) => v === null || (typeof v === 'string' && v.trim() !== ''),
  accessTokenLifetimeSeconds: (v) => v === null || isInt(1, 86_400)(v),
  omitRefreshToken: (v) => typeof v === 'boolean',
  extraScopes: isStringList,
  dropScopes: isStringList,
  tokenDelayMs: isInt(0, 600_000),
  tokenServerError: (v) => v === null || isInt(500, 599)(v),
  invalidClient: (v) => typeof v === 'boolean',
  refreshError: (v) => v === null || v === 'invalid_grant' || v === 'interaction_required' || v === 'consent_required',
};

export function registrationProblem(value: unknown): string | null {
  if (!isPlainObject(value)) return 'expected an object';
  if (!IDENTITY_STYLES.includes(value.style as IdentityStyle))
    return `style must be one of ${IDENTITY_STYLES.join(', ')}`;
  if (typeof value.clientId !== 'string' || value.clientId === '') return 'clientId must be a non-empty string';
  if (
    value.clientSecret !== undefined &&
    value.clientSecret !== null &&
    (typeof value.clientSecret !== 'string' || value.clientSecret === '')
  )
    return 'clientSecret must be a non-empty string or null';
  if (!isStringList(value.redirectUris) || (value.redirectUris as string[]).length === 0)
    return 'redirectUris must be a non-empty list of strings';
  if (
    value.authMethods !== undefined &&
    !(
      Array.isArray(value.authMethods) &&
      value.authMethods.every((m) => m === 'client_secret_post' || m === 'client_secret_basic')
    )
  ) {
    return 'authMethods must list client_secret_post and/or client_secret_basic';
  }
  return null;
}
