// The last resort of an entry point: a fault nothing handled (a bug, never a store outage — those
// fail open or answer 503) is logged and the process exits non-zero, so a supervisor restarts it
// instead of it serving in an unknown state.
import type { Logger } from 'pino';
import { flushLogger } from './observability.ts';

export function exitOnUnhandledFaults(log: Logger, exit: (code: number) => void = (code) => process.exit(code)): void {
  const fatal = (kind: string) => (error: unknown) => {
    log.fatal(
      { err: { message: (error as Error)?.message, name: (error as Error)?.name, stack: (error as Error)?.stack } },
      `${kind}; exiting`,
    );
    flushLogger(log);
    exit(1);
  };
  process.on('unhandledRejection', fatal('unhandled promise rejection'));
  process.on('uncaughtException', fatal('uncaught exception'));
}
