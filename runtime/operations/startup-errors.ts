// A start-up failure names the setting that points at what failed (docs/decisions/operations.md,
// 'Start-up failures name the setting'): `connect ECONNREFUSED 127.0.0.1:5999` becomes
// `DATABASE_URL postgres://…@127.0.0.1:5999/db could not be opened: connect ECONNREFUSED …`, an
// `ENOTDIR` names DATA_DIR. Never a password: URLs are shown through `describeUrl`.
import { ConfigError } from '../config/settings.ts';

/** Runs `step`; a failure other than a ConfigError is rethrown as one naming `setting` and `where`. */
export async function namingSetting<T>(
  setting: string,
  where: string,
  what: string,
  step: () => T | Promise<T>,
): Promise<T> {
  try {
    return await step();
  } catch (error) {
    if (error instanceof ConfigError) throw error;
    throw new ConfigError(`${setting} ${where} ${what}: ${(error as Error)?.message ?? String(error)}`);
  }
}
