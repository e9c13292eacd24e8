// The ledger sandbox's endpoints: POST /login (ASP.NET model binding, a bare JSON string on
// failure), /refresh, and /Query/Get/{entity} (token, quota, entity, body, then query.ts).
import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { sendJson, sendText } from '../http-kit.ts';
import {
  findLedgerUser,
  LEDGER_COMPANY_ROWS,
  LEDGER_LOGIN_ERRORS,
  type LedgerRow,
  ledgerCompanyData,
  ledgerCompanyRow,
} from './data.ts';
import {
  LedgerQueryError,
  ledgerEntitySchema,
  parseLedgerQuery,
  resolveLedgerEntity,
  runLedgerQuery,
} from './query.ts';
import { checkToken, countCall, mintTokens, unauthorized } from './session.ts';
import type { LedgerState } from './state.ts';

export function isJsonContentType(header: string | undefined): boolean {
  const media = header?.split(';')[0]?.trim().toLowerCase();
  if (media === undefined) return false;
  return media === 'application/json' || (media.startsWith('application/') && media.endsWith('+json'));
}

/** Reads an object member case-insensitively (ASP.NET model binding). */
function member(body: Record<string, unknown>, name: string): unknown {
  const wanted = name.toLowerCase();
  for (const [key, value] of Object.entries(body)) if (key.toLowerCase() === wanted) return value;
  return undefined;
}

function loginFailure(s: LedgerState, res: ServerResponse, message: string): void {
  s.stats.failedLogins++;
  sendJson(res, s.switches.loginFailureStatus, message);
}

export function handleLogin(s: LedgerState, res: ServerResponse, body: unknown): void {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    s.stats.failedLogins++;
    sendText(res, 400, 'The login request body must be a JSON object with Username and Password.');
    return;
  }
  const username = member(body as Record<string, unknown>, 'Username');
  const password = member(body as Record<string, unknown>, 'Password');
  if (typeof username !== 'string' || typeof password !== 'string') {
    loginFailure(s, res, LEDGER_LOGIN_ERRORS.invalidCredentials);
    return;
  }
  const prefixed = /^00(\d+)\/(.+)$/.exec(username.trim());
  const companyId = prefixed === null ? undefined : Number(prefixed[1]);
  const name =
    prefixed !== null
      ? prefixed[2]!
      : username.includes('/')
        ? username.slice(username.lastIndexOf('/') + 1)
        : username;
  const user = findLedgerUser(name.trim());
  if (user !== undefined && s.switches.quotaCountsLogin && !countCall(s, res, user)) return;
  if (user === undefined || user.password !== password) {
    loginFailure(s, res, LEDGER_LOGIN_ERRORS.invalidCredentials);
    return;
  }
  if (!user.serverLogin) {
    loginFailure(s, res, LEDGER_LOGIN_ERRORS.notServerLogin);
    return;
  }
  if (companyId === undefined || !user.companies.includes(companyId) || ledgerCompanyRow(companyId) === undefined) {
    loginFailure(s, res, LEDGER_LOGIN_ERRORS.noCompanyId);
    return;
  }
  s.stats.logins++;
  sendJson(res, 200, mintTokens(s, user, companyId));
}

export function handleRefresh(s: LedgerState, res: ServerResponse, body: unknown): void {
  const entry = typeof body === 'string' ? s.refreshTokens.get(body) : undefined;
  if (entry === undefined || entry.expires <= Date.now()) {
    sendJson(res, 401, 'Invalid refresh token');
    return;
  }
  s.refreshTokens.delete(body as string);
  sendJson(res, 200, mintTokens(s, entry.user, entry.companyId));
}

export function handleQuery(
  s: LedgerState,
  req: IncomingMessage,
  res: ServerResponse,
  entityName: string,
  text: string,
  tooLarge: boolean,
): void {
  const check = checkToken(s, req.headers.authorization);
  if (!check.ok) {
    unauthorized(s, res, check.reason);
    return;
  }
  if (!countCall(s, res, check.user)) return;
  const entity = resolveLedgerEntity(entityName);
  if (entity === undefined) {
    sendText(res, 400, `Unknown entity: ${entityName}`);
    return;
  }
  if (tooLarge) {
    sendText(res, 413, 'Request body too large');
    return;
  }
  if (!isJsonContentType(req.headers['content-type'])) {
    sendText(res, 415, 'Unsupported Media Type: the body must be application/json');
    return;
  }
  let body: unknown;
  try {
    body = JSON.parse(text) as unknown;
  } catch {
    sendText(res, 400, 'The request body is not valid JSON.');
    return;
  }
  const companyId = check.claims.cid;
  let rows: readonly LedgerRow[];
  if (entity === 'CompanyClient') {
    rows =
      s.switches.companyClientMode === 'loggedIn'
        ? LEDGER_COMPANY_ROWS.filter((row) => row.PrimaryKeyId === companyId)
        : LEDGER_COMPANY_ROWS.filter((row) => check.user.companies.includes(row.PrimaryKeyId as number));
  } else {
    rows = ledgerCompanyData(companyId)?.entities[entity] ?? [];
  }
  const omit = entity === 'DebtorInvoiceClient' && !s.switches.invoicePaidFlag ? new Set(['Paid']) : undefined;
  try {
    const query = parseLedgerQuery(ledgerEntitySchema(entity), body, {
      acceptIsoDates: s.switches.acceptIsoDates,
      ...(omit === undefined ? {} : { omit }),
    });
    const unknown = query.ignoredProperties[0];
    if (s.switches.unknownProperties === 'reject' && unknown !== undefined) {
      sendText(res, 400, `Unknown property: ${unknown} is not a property of ${entity}`);
      return;
    }
    const tieSeed = s.switches.unstableTieOrder ? randomBytes(4).readUInt32LE(0) : undefined;
    sendJson(res, 200, runLedgerQuery(rows, query, omit, tieSeed));
  } catch (error) {
    if (error instanceof LedgerQueryError) sendText(res, error.status, error.message);
    else throw error;
  }
}
