// What the repositories share: the row shapes and column lists of the tables several of them read
// (the snapshot and the joins read accounts, users, tokens and connections), the row mappers and
// the small helpers around PostgreSQL's answers.
import { randomBytes } from 'node:crypto';
import type {
  Account,
  Connection,
  DataLayerState,
  FairUseMode,
  InstanceToolSettings,
  OAuthState,
  TokenRecord,
  TokenScope,
  UsageRow,
  User,
  UserRole,
} from '../store.ts';

/** A write the data refuses: a duplicate (`conflict`) or a reference to nothing (`not_found`). */
export class StoreError extends Error {
  readonly code: 'conflict' | 'not_found';
  constructor(code: 'conflict' | 'not_found', message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'StoreError';
    this.code = code;
  }
}

const BASE32 = 'abcdefghijklmnopqrstuvwxyz234567';

/** `<prefix>` + 20 lowercase base32 characters (100 random bits). */
export function newId(prefix: string): string {
  const bytes = randomBytes(13);
  let out = '';
  let value = 0;
  let bits = 0;
  for (const byte of bytes) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5 && out.length < 20) {
      bits -= 5;
      out += BASE32.charAt((value >>> bits) & 31);
    }
    value &= (1 << bits) - 1;
  }
  return prefix + out;
}

export const ACCOUNT_COLUMNS = 'id, name, fair_use_mode, fair_use_quota, created_at';
export interface AccountRow {
  id: string;
  name: string;
  fair_use_mode: FairUseMode;
  fair_use_quota: number | string | null;
  created_at: Date;
}

export const USER_COLUMNS = 'id, account_id, email, name, role, terms_accepted_at, created_at';
export interface UserRow {
  id: string;
  account_id: string;
  email: string;
  name: string;
  role: UserRole;
  terms_accepted_at: Date | null;
  created_at: Date;
}

export const TOKEN_COLUMNS = 'id, user_id, label, token_hash, created_at, revoked_at, scope';
export interface TokenRow {
  id: string;
  user_id: string;
  label: string;
  token_hash: string;
  created_at: Date;
  revoked_at: Date | null;
  scope: string | null;
}

export const CONNECTION_COLUMNS =
  'account_id, instance_id, connector_key, ciphertext, key_version, created_at, updated_at, reconnect_required_at, ' +
  'reconnect_reason';
export interface ConnectionRow {
  account_id: string;
  instance_id: string;
  connector_key: string;
  ciphertext: string;
  key_version: number;
  created_at: Date;
  updated_at: Date;
  reconnect_required_at: Date | null;
  reconnect_reason?: string | null;
}

export const TOOL_SETTINGS_COLUMNS =
  'account_id, instance_id, disabled_toolsets, disabled_tools, read_only, updated_at';
export interface ToolSettingsRow {
  account_id: string;
  instance_id: string;
  disabled_toolsets: string;
  disabled_tools: string;
  read_only: boolean;
  updated_at: Date;
}

export const OAUTH_STATE_COLUMNS =
  'state_hash, account_id, user_id, instance_id, connector_key, link_jti, verifier_sealed, browser_hash, expires_at';
export interface OAuthStateRow {
  state_hash: string;
  account_id: string;
  user_id: string;
  instance_id: string;
  connector_key: string;
  link_jti: string;
  verifier_sealed: string;
  browser_hash: string;
  expires_at: Date;
}

export interface UsageDbRow {
  account_id: string;
  month: string;
  connector_id: string;
  tool: string;
  calls: number | string;
  cost_units: number | string;
}

export interface DataLayerRow {
  account_id: string;
  instance_id: string;
  enabled_at: Date;
  baseline_at: Date | null;
  item_count: number | string;
}

export interface SeenItemRow {
  item_key: string;
  first_seen_at: Date;
  baseline: boolean;
}

export function date(value: Date | string): Date {
  return value instanceof Date ? value : new Date(value);
}

export function dateOrNull(value: Date | string | null): Date | null {
  return value === null ? null : date(value);
}

/** bigint and numeric arrive as strings from `pg`, as numbers from PGlite. */
export function num(value: number | string | bigint): number {
  return Number(value);
}

export function toAccount(r: AccountRow): Account {
  return {
    id: r.id,
    name: r.name,
    fairUseMode: r.fair_use_mode,
    fairUseQuota: r.fair_use_quota === null ? null : num(r.fair_use_quota),
    createdAt: date(r.created_at),
  };
}

export function toUser(r: UserRow): User {
  return {
    id: r.id,
    accountId: r.account_id,
    email: r.email,
    name: r.name,
    role: r.role,
    termsAcceptedAt: dateOrNull(r.terms_accepted_at),
    createdAt: date(r.created_at),
  };
}

export function toToken(r: TokenRow): TokenRecord {
  return {
    id: r.id,
    userId: r.user_id,
    label: r.label,
    tokenHash: r.token_hash,
    createdAt: date(r.created_at),
    revokedAt: dateOrNull(r.revoked_at),
    scope: r.scope === null || r.scope === undefined ? null : (JSON.parse(r.scope) as TokenScope),
  };
}

export function toConnection(r: ConnectionRow): Connection {
  return {
    accountId: r.account_id,
    instanceId: r.instance_id,
    connectorKey: r.connector_key,
    ciphertext: r.ciphertext,
    keyVersion: num(r.key_version),
    createdAt: date(r.created_at),
    updatedAt: date(r.updated_at),
    reconnectRequiredAt: dateOrNull(r.reconnect_required_at ?? null),
    reconnectReason: r.reconnect_reason ?? null,
  };
}

export function toToolSettings(r: ToolSettingsRow): InstanceToolSettings {
  return {
    accountId: r.account_id,
    instanceId: r.instance_id,
    disabledToolsets: JSON.parse(r.disabled_toolsets) as string[],
    disabledTools: JSON.parse(r.disabled_tools) as string[],
    readOnly: r.read_only === true,
    updatedAt: date(r.updated_at),
  };
}

export function toOAuthState(r: OAuthStateRow): OAuthState {
  return {
    stateHash: r.state_hash,
    accountId: r.account_id,
    userId: r.user_id,
    instanceId: r.instance_id,
    connectorKey: r.connector_key,
    linkJti: r.link_jti,
    verifierSealed: r.verifier_sealed,
    browserHash: r.browser_hash,
    expiresAt: date(r.expires_at),
  };
}

export function toUsage(r: UsageDbRow): UsageRow {
  return {
    accountId: r.account_id,
    month: r.month,
    connectorId: r.connector_id,
    tool: r.tool,
    calls: num(r.calls),
    costUnits: num(r.cost_units),
  };
}

export function toDataLayer(r: DataLayerRow): DataLayerState {
  return {
    accountId: r.account_id,
    instanceId: r.instance_id,
    enabledAt: date(r.enabled_at),
    baselineAt: dateOrNull(r.baseline_at),
    itemCount: num(r.item_count),
  };
}

/** Prefixes every column of a list, for joins: `t.id AS t_id, …`. */
export function prefixed(alias: string, columns: string): string {
  return columns
    .split(', ')
    .map((c) => `${alias}.${c} AS ${alias}_${c}`)
    .join(', ');
}

export function unprefixed<T>(row: Record<string, unknown>, alias: string): T {
  const out: Record<string, unknown> = {};
  const start = alias.length + 1;
  for (const [key, value] of Object.entries(row)) {
    if (key.startsWith(`${alias}_`)) out[key.slice(start)] = value;
  }
  return out as T;
}

/** Turns PostgreSQL's unique and foreign-key violations into `StoreError`s. */
export function translate(err: unknown, what: string): never {
  const code = (err as { code?: unknown } | null)?.code;
  if (code === '23505') throw new StoreError('conflict', `${what} already exists.`, { cause: err });
  if (code === '23503')
    throw new StoreError('not_found', `${what} refers to a record that does not exist.`, { cause: err });
  throw err;
}

/** Every column of a list qualified by a table alias (same names in the result): `c.id, c.name`. */
export function qualified(alias: string, columns: string): string {
  return columns
    .split(', ')
    .map((c) => `${alias}.${c}`)
    .join(', ');
}

export function first<T>(rows: T[], what: string): T {
  const row = rows[0];
  if (row === undefined) throw new Error(`${what}: no row returned.`);
  return row;
}

export function assertCount(value: number, what: string): void {
  if (!Number.isSafeInteger(value) || value < 0) throw new RangeError(`${what} must be a non-negative integer.`);
}
