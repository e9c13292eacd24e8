// The one place secrets are taken out of what leaves the gateway. An upstream may repeat the key
// it was sent (in an error message, a validation text, a body the gateway logs); whatever path
// that text takes, it passes here before it reaches a log line or a tool result:
// - every log line: the root logger's hook (operations/observability.ts) scrubs each string of each line
//   with the redactor of the call it is written in (found through AsyncLocalStorage, so a
//   handler's own `ctx.log`, the pipeline and the upstream client are all covered) or, outside a
//   call, with the bearer-shaped patterns only;
// - every tool result: the pipeline scrubs its text blocks and structured content on the way out;
// - failure summaries a handler puts into a result (`describeFailure`) are scrubbed before the
//   handler can cut them short (a cut secret would no longer match).
// Metric labels are closed sets (connector, tool, outcome code, reason, route) and carry no text.
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Credential } from './handler-api/tool-context.ts';

export const REDACTED = '[redacted]';

/**
 * Secret values shorter than this are not searched for: a 1–3 character value cannot be told
 * from ordinary text (replacing "7" or "ab" everywhere would corrupt results) and is guessed in
 * seconds anyway (docs/decisions/secrets-and-vault.md, 'Values shorter than 4
 * characters are not searched for').
 */
export const MIN_SECRET_CHARS = 4;

const MAX_DEPTH = 64;

/** Credential fields that name rather than authenticate (the user's own name, a company number). */
const NOT_SECRET: ReadonlySet<string> = new Set(['kind', 'username', 'companyId', 'scope', 'expiresAt']);

/** `Bearer <token>` in any case (RFC 9110 schemes are case-insensitive); the scheme word stays. */
const BEARER = /\b(bearer)(\s+)[A-Za-z0-9\-._~+/]{8,}=*/gi;
const BEARER_HINT = /bearer/i;
/** The gateway's own caller tokens (auth/caller-tokens.ts: `cgw_` + 32 base64url characters). */
const GATEWAY_TOKEN = /cgw_[A-Za-z0-9_-]{16,}/g;

/** The forms a secret value travels in: as is, URL- and form-encoded, JSON-escaped, base64. */
function encodings(value: string): string[] {
  const url = encodeURIComponent(value);
  return [
    value,
    url,
    url.replace(/%20/g, '+'),
    JSON.stringify(value).slice(1, -1),
    Buffer.from(value).toString('base64'),
    Buffer.from(value).toString('base64url'),
  ];
}

export class Redactor {
  /** Outside any call: the bearer-shaped patterns only. */
  static readonly patterns = new Redactor([]);

  /** Longest first, so an encoding that contains another form is replaced whole. */
  readonly #needles: readonly string[];
  /** The shortest needle's length: a shorter string cannot contain any (most log fields are short ids). */
  readonly #shortest: number;

  constructor(secrets: readonly string[]) {
    const needles = new Set<string>();
    for (const secret of secrets)
      if (secret.length >= MIN_SECRET_CHARS) for (const form of encodings(secret)) needles.add(form);
    this.#needles = [...needles].sort((a, b) => b.length - a.length);
    this.#shortest = this.#needles.at(-1)?.length ?? Number.POSITIVE_INFINITY;
  }

  /**
   * The redactor of one connection: every string value of its credential except the fields that
   * name rather than authenticate, and the Basic form of a username and password.
   */
  static of(credential: Credential | null): Redactor {
    if (!credential) return Redactor.patterns;
    // A credential object the calls share (a managed one, made once): found by identity.
    const shared = byObject.get(credential);
    if (shared) return shared;
    // Made once per connection, not per call (a tenant credential is decrypted per call).
    const key = JSON.stringify(credential);
    let redactor = made.get(key);
    if (!redactor) {
      redactor = Redactor.#build(credential);
      if (made.size >= MADE_MAX) made.clear();
      made.set(key, redactor);
    }
    if (Object.isFrozen(credential)) byObject.set(credential, redactor);
    return redactor;
  }

  static #build(credential: Credential): Redactor {
    const secrets: string[] = [];
    for (const [field, value] of Object.entries(credential))
      if (typeof value === 'string' && !NOT_SECRET.has(field)) secrets.push(value);
    const { username, password } = credential as { username?: unknown; password?: unknown };
    // HTTP Basic: base64 of `user:password` is among the pair's encodings.
    if (typeof username === 'string' && typeof password === 'string' && password.length > 0)
      secrets.push(`${username}:${password}`);
    return secrets.length === 0 ? Redactor.patterns : new Redactor(secrets);
  }

  /** `text` with every secret form and every bearer-shaped token replaced by `[redacted]`. */
  text(text: string): string {
    let out = text;
    if (out.length >= this.#shortest)
      for (const needle of this.#needles) if (out.includes(needle)) out = out.replaceAll(needle, REDACTED);
    if (BEARER_HINT.test(out)) out = out.replace(BEARER, `$1$2${REDACTED}`);
    if (out.includes('cgw_')) out = out.replace(GATEWAY_TOKEN, REDACTED);
    return out;
  }

  /**
   * A copy of `value` with every string (keys included) scrubbed; unchanged parts are shared and
   * an unchanged value is returned as is. An Error is always copied (same class, scrubbed fields).
   */
  value(value: unknown, depth = 0): unknown {
    if (typeof value === 'string') return this.text(value);
    if (value === null || typeof value !== 'object') return value;
    // Deeper than any result or log line should be (or a cycle): not searched, so not let out.
    if (depth > MAX_DEPTH) return REDACTED;
    if (value instanceof Error) {
      // A copy of the same class (the log shows its type), every own field scrubbed as well (an
      // UpstreamError carries the upstream's body).
      const copy = Object.create(Object.getPrototypeOf(value)) as Error & Record<string, unknown>;
      for (const [key, item] of Object.entries(value)) copy[key] = this.value(item, depth + 1);
      copy.name = value.name;
      copy.message = this.text(value.message);
      if (value.stack) copy.stack = this.text(value.stack);
      if (value.cause !== undefined) copy.cause = this.value(value.cause, depth + 1);
      return copy;
    }
    if (Array.isArray(value)) {
      let changed = false;
      const copy = value.map((item) => {
        const scrubbed = this.value(item, depth + 1);
        if (scrubbed !== item) changed = true;
        return scrubbed;
      });
      return changed ? copy : value;
    }
    if (Buffer.isBuffer(value) || value instanceof Date) return value;
    let copy: Record<string, unknown> | undefined;
    // for…in with an own-property check rather than Object.entries: no pair array per field of
    // every log line (the root logger's hook comes here for each line).
    for (const key in value) {
      if (!Object.hasOwn(value, key)) continue;
      const item = (value as Record<string, unknown>)[key];
      const scrubbedKey = this.text(key);
      const scrubbed = this.value(item, depth + 1);
      if (scrubbed !== item || scrubbedKey !== key) {
        copy ??= { ...(value as Record<string, unknown>) };
        if (scrubbedKey !== key) delete copy[key];
        copy[scrubbedKey] = scrubbed;
      }
    }
    return copy ?? value;
  }

  /** Runs `fn` (a tool call) with this redactor applied to every log line written inside it. */
  run<T>(fn: () => T): T {
    return scope.run(this, fn);
  }
}

const scope = new AsyncLocalStorage<Redactor>();

/** Redactors by credential (its JSON); cleared when full rather than tracked by age. */
const made = new Map<string, Redactor>();
/** Redactors of frozen credential objects that calls share, by the object (gone with it). */
const byObject = new WeakMap<object, Redactor>();
const MADE_MAX = 1000;

/** The redactor of the call running now, or the patterns-only one outside a call. */
export function currentRedactor(): Redactor {
  return scope.getStore() ?? Redactor.patterns;
}
