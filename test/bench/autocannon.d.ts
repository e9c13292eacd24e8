// The part of autocannon's API the load generator uses (the package ships no types).
declare module 'autocannon' {
  import type { EventEmitter } from 'node:events';

  interface AutocannonRequest {
    method?: string;
    path?: string;
    headers?: Record<string, string>;
    body?: string;
    onResponse?: (status: number, body: string, context: Record<string, unknown>) => void;
  }

  interface AutocannonOptions {
    url: string;
    connections?: number;
    duration?: number;
    amount?: number;
    pipelining?: number;
    timeout?: number;
    sampleInt?: number;
    requests?: AutocannonRequest[];
  }

  interface AutocannonResult {
    errors: number;
    timeouts: number;
    non2xx: number;
    resets: number;
    duration: number;
    [key: string]: unknown;
  }

  interface Instance extends EventEmitter {
    stop(): void;
  }

  function autocannon(
    options: AutocannonOptions,
    callback: (error: Error | null, result: AutocannonResult) => void,
  ): Instance;
  export default autocannon;
}
