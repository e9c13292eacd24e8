// The optional shared store for several replicas (Redis): rate-limit buckets, fair-use counters,
// cluster-wide concurrency slots of throttled connectors, and snapshot invalidation. Every operation has a
// bounded wait; callers fail open when it throws.
import { randomUUID } from 'node:crypto';
import { createClient, type RedisClientType } from 'redis';

export interface SharedStore {
  /** Token bucket: true when a token was taken. */
  tokenBucket(key: string, perSecond: number, burst: number): Promise<boolean>;
  /** Atomic check-and-increment: seeds the counter with `seed` when absent; no overshoot. */
  reserveUnit(key: string, limit: number, seed: number, ttlSeconds: number): Promise<{ allowed: boolean; used: number }>;
  /** Adds `delta` (seeding with `seed` when absent) and returns the new value. */
  addUnits(key: string, delta: number, seed: number, ttlSeconds: number): Promise<number>;
  getUnits(key: string): Promise<number | null>;
  /** A slot of a cluster-wide semaphore, or null when all `limit` slots are taken. */
  tryAcquireSlot(key: string, limit: number, leaseMs: number): Promise<string | null>;
  releaseSlot(key: string, slot: string): Promise<void>;
  publish(channel: string, message: string): Promise<void>;
  subscribe(channel: string, onMessage: (message: string) => void): Promise<void>;
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

const RESERVE = `
redis.call('SET', KEYS[1], ARGV[2], 'NX', 'EX', ARGV[3])
local used = tonumber(redis.call('GET', KEYS[1]))
if used + 1 > tonumber(ARGV[1]) then return {0, used} end
return {1, redis.call('INCR', KEYS[1])}`;

const ADD = `
redis.call('SET', KEYS[1], ARGV[2], 'NX', 'EX', ARGV[3])
return redis.call('INCRBY', KEYS[1], ARGV[1])`;

const ACQUIRE = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[1]) then return 0 end
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[2]), ARGV[3])
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[2]) + 1000)
return 1`;

function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`shared store: ${what} took longer than ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

export class RedisSharedStore implements SharedStore {
  readonly #client: RedisClientType;
  #subscriber: RedisClientType | undefined;
  readonly #timeoutMs: number;
  readonly #prefix: string;

  private constructor(client: RedisClientType, timeoutMs: number, prefix: string) {
    this.#client = client;
    this.#timeoutMs = timeoutMs;
    this.#prefix = prefix;
  }

  static async connect(url: string, options: { timeoutMs?: number; prefix?: string; onError?: (error: unknown) => void } = {}): Promise<RedisSharedStore> {
    const client = createClient({
      url,
      socket: { connectTimeout: 2000, reconnectStrategy: (retries: number) => Math.min(retries * 200, 2000) },
      disableOfflineQueue: true,
    }) as RedisClientType;
    client.on('error', (error: unknown) => options.onError?.(error));
    await withTimeout(client.connect(), 3000, 'connect');
    return new RedisSharedStore(client, options.timeoutMs ?? 100, options.prefix ?? 'cg:');
  }

  #k(key: string): string {
    return `${this.#prefix}${key}`;
  }

  async #eval(script: string, keys: string[], args: (string | number)[], what: string): Promise<unknown> {
    return withTimeout(this.#client.eval(script, { keys: keys.map((k) => this.#k(k)), arguments: args.map(String) }), this.#timeoutMs, what);
  }

  async tokenBucket(key: string, perSecond: number, burst: number): Promise<boolean> {
    return (await this.#eval(TOKEN_BUCKET, [key], [perSecond, burst], 'rate limit')) === 1;
  }

  async reserveUnit(key: string, limit: number, seed: number, ttlSeconds: number): Promise<{ allowed: boolean; used: number }> {
    const [ok, used] = (await this.#eval(RESERVE, [key], [limit, seed, ttlSeconds], 'fair-use reserve')) as [number, number];
    return { allowed: ok === 1, used: Number(used) };
  }

  async addUnits(key: string, delta: number, seed: number, ttlSeconds: number): Promise<number> {
    return Number(await this.#eval(ADD, [key], [delta, seed, ttlSeconds], 'fair-use add'));
  }

  async getUnits(key: string): Promise<number | null> {
    const value = await withTimeout(this.#client.get(this.#k(key)), this.#timeoutMs, 'fair-use read');
    return value === null ? null : Number(value);
  }

  async tryAcquireSlot(key: string, limit: number, leaseMs: number): Promise<string | null> {
    const slot = randomUUID();
    return (await this.#eval(ACQUIRE, [key], [limit, leaseMs, slot], 'slot acquire')) === 1 ? slot : null;
  }

  async releaseSlot(key: string, slot: string): Promise<void> {
    await withTimeout(this.#client.zRem(this.#k(key), slot), this.#timeoutMs, 'slot release');
  }

  async publish(channel: string, message: string): Promise<void> {
    await withTimeout(this.#client.publish(this.#k(channel), message), this.#timeoutMs, 'publish');
  }

  async subscribe(channel: string, onMessage: (message: string) => void): Promise<void> {
    this.#subscriber ??= this.#client.duplicate() as RedisClientType;
    if (!this.#subscriber.isOpen) await this.#subscriber.connect();
    await this.#subscriber.subscribe(this.#k(channel), onMessage);
  }

  async close(): Promise<void> {
    await Promise.allSettled([this.#subscriber?.quit(), this.#client.quit()]);
  }
}
