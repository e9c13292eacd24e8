// The optional shared store for several replicas (Redis): rate-limit buckets, fair-use counters,
// cluster-wide concurrency slots of throttled connectors, and snapshot invalidation. Every operation has a
// bounded wait; callers fail open when it throws.
import { randomUUID } from 'node:crypto';
import { createClient, ErrorReply, type RedisClientType } from 'redis';
import { StallWatch, type StoreHealth } from './store-health.ts';

export interface SharedStore {
  /** Token bucket: true when a token was taken. */
  tokenBucket(key: string, perSecond: number, burst: number): Promise<boolean>;
  /**
   * Atomic check-and-increment of a fair-use counter; no overshoot. With `seed`, an absent counter
   * or one below it is first set to it (a seed is a lower bound of the units used, so the counter
   * is never lowered); without, an absent counter answers `null` (the caller seeds it).
   */
  reserveUnit(
    key: string,
    limit: number,
    ttlSeconds: number,
    seed?: number,
  ): Promise<{ allowed: boolean; used: number } | null>;
  /** Adds `delta` to the counter if it exists (never below 0); `null` when it does not. */
  addUnits(key: string, delta: number): Promise<number | null>;
  /** Raises each existing counter to at least its value (never lowers one); how many were raised. */
  raiseUnits(counters: ReadonlyMap<string, number>, ttlSeconds: number): Promise<number>;
  getUnits(key: string): Promise<number | null>;
  /** A slot of a cluster-wide semaphore, or null when all `limit` slots are taken. */
  tryAcquireSlot(key: string, limit: number, leaseMs: number): Promise<string | null>;
  releaseSlot(key: string, slot: string): Promise<void>;
  publish(channel: string, message: string): Promise<void>;
  /**
   * Messages of `channel`. The subscription survives reconnects; `onResubscribed` runs each time it
   * is in place again after the connection was lost (messages sent meanwhile were missed).
   */
  subscribe(channel: string, onMessage: (message: string) => void, onResubscribed?: () => void): Promise<void>;
  /** A cheap round trip with the bounded wait (readiness). */
  ping(): Promise<void>;
  close(): Promise<void>;
}

const TOKEN_BUCKET = `
local key = KEYS[1]
local rate = tonumber(ARGV[1])
local burst = tonumber(ARGV[2])
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local state = redis.call('HMGET', key, 'tokens', 'at')
local tokens = tonumber(state[1]) or burst
local at = tonumber(state[2]) or now
tokens = math.min(burst, tokens + (now - at) / 1000 * rate)
local allowed = 0
if tokens >= 1 then tokens = tokens - 1; allowed = 1 end
redis.call('HSET', key, 'tokens', tokens, 'at', now)
redis.call('PEXPIRE', key, math.ceil(burst / rate * 1000) + 1000)
return allowed`;

// ARGV: limit, ttl, seed ('' for none). Answers {1, used} reserved, {0, used} blocked, {-1, 0} absent.
const RESERVE = `
local v = redis.call('GET', KEYS[1])
if ARGV[3] ~= '' and (not v or tonumber(v) < tonumber(ARGV[3])) then
  v = ARGV[3]
  redis.call('SET', KEYS[1], v, 'EX', ARGV[2])
end
if not v then return {-1, 0} end
local used = tonumber(v)
if used + 1 > tonumber(ARGV[1]) then return {0, used} end
return {1, redis.call('INCR', KEYS[1])}`;

const ADD_IF_EXISTS = `
local v = redis.call('GET', KEYS[1])
if not v then return false end
local n = math.max(0, tonumber(v) + tonumber(ARGV[1]))
redis.call('SET', KEYS[1], n, 'KEEPTTL')
return n`;

const RAISE = `
local raised = 0
for i, key in ipairs(KEYS) do
  local v = redis.call('GET', key)
  if v and tonumber(v) < tonumber(ARGV[i + 1]) then
    redis.call('SET', key, ARGV[i + 1], 'XX', 'EX', ARGV[1])
    raised = raised + 1
  end
end
return raised`;

const ACQUIRE = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[1]) then return 0 end
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[2]), ARGV[3])
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[2]) + 1000)
return 1`;

class DeadlineMissed extends Error {}

/** Further attempts of a slot release that failed (after 200, 400, 800, 1600 ms). */
const RELEASE_RETRIES = 4;

function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new DeadlineMissed(`shared store: ${what} took longer than ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

export class RedisSharedStore implements SharedStore {
  #client: RedisClientType;
  #subscriber: RedisClientType | undefined;
  readonly #timeoutMs: number;
  readonly #prefix: string;
  readonly #onError: (error: unknown) => void;
  readonly #health: StoreHealth | undefined;
  readonly #stall: StallWatch;
  /** Connections replaced because they stopped answering (tests, logs). */
  replaced = 0;

  private constructor(
    client: RedisClientType,
    timeoutMs: number,
    prefix: string,
    onError: (error: unknown) => void,
    health: StoreHealth | undefined,
  ) {
    this.#client = client;
    this.#timeoutMs = timeoutMs;
    this.#prefix = prefix;
    this.#onError = onError;
    this.#health = health;
    // Silent for three deadlines, with three misses in a row: stalled (a late reply resets both).
    this.#stall = new StallWatch(3 * timeoutMs);
  }

  /**
   * Connects within 3 s. Without `startDegraded` a server that does not answer is an error; with
   * it, `startDegraded` is told and the store is returned anyway: the client keeps connecting in
   * the background (its reconnect strategy) and every command fails until then, so callers fail
   * open as during any outage (docs/decisions/operations.md, 'A replica can start while Redis is
   * down').
   */
  static async connect(
    url: string,
    options: {
      timeoutMs?: number;
      prefix?: string;
      onError?: (error: unknown) => void;
      health?: StoreHealth;
      startDegraded?: (error: unknown) => void;
    } = {},
  ): Promise<RedisSharedStore> {
    const client = createClient({
      url,
      socket: { connectTimeout: 2000, reconnectStrategy: (retries: number) => Math.min(retries * 200, 2000) },
      disableOfflineQueue: true,
    }) as RedisClientType;
    // Every client needs an 'error' listener: without one a dropped connection ends the process.
    // The client reconnects by itself (reconnectStrategy); meanwhile commands fail and callers fail open.
    const onError = (error: unknown) => options.onError?.(error);
    client.on('error', onError);
    // A server that answers with an error (a wrong password, an unknown user) is a configuration
    // to fix, not an outage to wait out: it is refused even where starting degraded is allowed.
    let answered: ErrorReply | undefined;
    const onReply = (error: unknown) => {
      if (error instanceof ErrorReply) answered = error;
    };
    client.on('error', onReply);
    const connecting = client.connect();
    try {
      await withTimeout(connecting, 3000, 'connect');
    } catch (error) {
      if (!options.startDegraded || answered) {
        client.destroy();
        throw answered ?? error;
      }
      // Settles when the server answers at last, or rejects when close() ends the attempts.
      connecting.catch(() => {});
      options.startDegraded(error);
    } finally {
      client.off('error', onReply);
    }
    return new RedisSharedStore(client, options.timeoutMs ?? 100, options.prefix ?? 'cg:', onError, options.health);
  }

  /**
   * Every command with its deadline. Its outcome goes to the health report; a connection whose
   * commands keep missing their deadline with no answer between them (replies lost, a half-open
   * socket) is replaced by a fresh one instead of costing every later call its deadline
   * (docs/decisions/operations.md, 'A Redis connection that stops answering is replaced').
   */
  async #timed<T>(command: Promise<T>, what: string): Promise<T> {
    // Any reply, late ones included, shows the connection still answers.
    command.then(
      () => this.#stall.replied(),
      () => {},
    );
    try {
      const answer = await withTimeout(command, this.#timeoutMs, what);
      this.#health?.ok();
      return answer;
    } catch (error) {
      this.#health?.fault(what, error);
      if (error instanceof DeadlineMissed && this.#stall.missed()) this.#replace();
      throw error;
    }
  }

  #replace(): void {
    const old = this.#client;
    const fresh = old.duplicate() as RedisClientType;
    fresh.on('error', this.#onError);
    this.#client = fresh;
    this.replaced++;
    // Commands meanwhile fail at once (no offline queue) and their callers fail open.
    void fresh.connect().catch((error: unknown) => this.#onError(error));
    old.destroy();
  }

  #k(key: string): string {
    return `${this.#prefix}${key}`;
  }

  async #eval(script: string, keys: string[], args: (string | number)[], what: string): Promise<unknown> {
    return this.#timed(
      this.#client.eval(script, { keys: keys.map((k) => this.#k(k)), arguments: args.map(String) }),
      what,
    );
  }

  async tokenBucket(key: string, perSecond: number, burst: number): Promise<boolean> {
    return (await this.#eval(TOKEN_BUCKET, [key], [perSecond, burst], 'rate limit')) === 1;
  }

  async reserveUnit(
    key: string,
    limit: number,
    ttlSeconds: number,
    seed?: number,
  ): Promise<{ allowed: boolean; used: number } | null> {
    const run = this.#client.eval(RESERVE, {
      keys: [this.#k(key)],
      arguments: [String(limit), String(ttlSeconds), seed === undefined ? '' : String(seed)],
    }) as Promise<[number, number]>;
    let answered = false;
    try {
      const [ok, used] = await this.#timed(run, 'fair-use reserve');
      answered = true;
      return ok === -1 ? null : { allowed: ok === 1, used: Number(used) };
    } finally {
      // The caller failed open on a slow answer: a unit reserved after all is given back.
      if (!answered) void run.then(([ok]) => (ok === 1 ? this.addUnits(key, -1) : null)).catch(() => {});
    }
  }

  async addUnits(key: string, delta: number): Promise<number | null> {
    const n = await this.#eval(ADD_IF_EXISTS, [key], [delta], 'fair-use add');
    return n === null ? null : Number(n);
  }

  async raiseUnits(counters: ReadonlyMap<string, number>, ttlSeconds: number): Promise<number> {
    if (counters.size === 0) return 0;
    return Number(
      await this.#eval(RAISE, [...counters.keys()], [ttlSeconds, ...counters.values()], 'fair-use reconcile'),
    );
  }

  async getUnits(key: string): Promise<number | null> {
    const value = await this.#timed(this.#client.get(this.#k(key)), 'fair-use read');
    return value === null ? null : Number(value);
  }

  async tryAcquireSlot(key: string, limit: number, leaseMs: number): Promise<string | null> {
    const slot = randomUUID();
    const run = this.#client.eval(ACQUIRE, { keys: [this.#k(key)], arguments: [String(limit), String(leaseMs), slot] });
    let answered = false;
    try {
      const granted = (await this.#timed(run, 'slot acquire')) === 1;
      answered = true;
      return granted ? slot : null;
    } finally {
      // The caller went on without a slot: one granted after all is given back at once, not held
      // until its lease ends (docs/decisions/operations.md, 'A late slot grant is released').
      // A command lost with its connection may still have run: its slot id is removed all the same.
      if (!answered)
        void run
          .then(
            (granted) => granted === 1,
            () => true,
          )
          .then((held) => (held ? this.releaseSlot(key, slot) : undefined))
          .catch(() => {});
    }
  }

  async releaseSlot(key: string, slot: string): Promise<void> {
    try {
      await this.#timed(this.#client.zRem(this.#k(key), slot), 'slot release');
    } catch (error) {
      this.#retryRelease(key, slot, 1);
      throw error;
    }
  }

  /**
   * A release that missed its deadline is tried again a few times, so a short stall holds no slot
   * until its lease ends.
   */
  #retryRelease(key: string, slot: string, attempt: number): void {
    if (attempt > RELEASE_RETRIES) return;
    const timer = setTimeout(
      () => {
        this.#timed(this.#client.zRem(this.#k(key), slot), 'slot release').catch(() =>
          this.#retryRelease(key, slot, attempt + 1),
        );
      },
      100 * 2 ** attempt,
    );
    timer.unref();
  }

  async publish(channel: string, message: string): Promise<void> {
    await this.#timed(this.#client.publish(this.#k(channel), message), 'publish');
  }

  async subscribe(channel: string, onMessage: (message: string) => void, onResubscribed?: () => void): Promise<void> {
    if (!this.#subscriber) {
      const subscriber = this.#client.duplicate() as RedisClientType;
      subscriber.on('error', this.#onError);
      this.#subscriber = subscriber;
    }
    const subscriber = this.#subscriber;
    if (onResubscribed) {
      // 'ready' follows every reconnect, after the client has subscribed again.
      let first = true;
      subscriber.on('ready', () => {
        if (first) first = false;
        else onResubscribed();
      });
      if (subscriber.isReady) first = false;
    }
    // A subscription that misses its deadline (Redis down at start) is still made when the server
    // answers; the broadcasts missed until then are caught up like after a reconnect.
    let late = false;
    const subscribing = (async () => {
      if (!subscriber.isOpen) await subscriber.connect();
      await subscriber.subscribe(this.#k(channel), onMessage);
      if (late) onResubscribed?.();
    })();
    try {
      await withTimeout(subscribing, 3000, 'subscribe');
    } catch (error) {
      late = true;
      subscribing.catch(() => {});
      throw error;
    }
  }

  async ping(): Promise<void> {
    await this.#timed(this.#client.ping(), 'ping');
    if (this.#subscriber && !this.#subscriber.isReady) throw new Error('shared store: the subscriber is reconnecting');
  }

  async close(): Promise<void> {
    // A client that is reconnecting cannot quit gracefully: destroy it so no retry outlives us.
    const end = (c: RedisClientType | undefined) =>
      c && (c.isReady ? c.close().catch(() => c.destroy()) : Promise.resolve(c.isOpen ? c.destroy() : undefined));
    await Promise.allSettled([end(this.#subscriber), end(this.#client)]);
  }
}
