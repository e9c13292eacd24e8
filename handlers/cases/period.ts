// Periods of the case tools: calendar days in Europe/Copenhagen. `from` is inclusive from local
// midnight; `to` is inclusive as a whole day, so the bound sent upstream is the next local
// midnight (exclusive). Offsets come from the platform's Intl time-zone data, so daylight-saving
// days (23 or 25 hours) are right.
import { localDate, localMidnight } from '#runtime/handler-api/calendar.ts';

export type Period = {
  readonly from: string;
  readonly to: string;
  readonly fromUnix: number;
  readonly toUnix: number;
  readonly toIsExclusive: true;
  readonly timeZone: typeof COPENHAGEN;
};

export const COPENHAGEN = 'Europe/Copenhagen';

/** Unix seconds of local midnight at the start of `date` (YYYY-MM-DD) in the time zone. */
export function localMidnightUnix(date: string, timeZone: string): number {
  return Math.floor(localMidnight(date, timeZone).getTime() / 1000);
}

export function nextDay(date: string): string {
  const [y, m, d] = date.split('-').map(Number) as [number, number, number];
  return new Date(Date.UTC(y, m - 1, d + 1)).toISOString().slice(0, 10);
}

export const DEFAULT_FROM = '2000-01-01';

/** The period for `from`/`to` arguments, or null when `from` is after `to`. */
export function resolvePeriod(
  from: string | undefined,
  to: string | undefined,
  now: Date,
  timeZone: typeof COPENHAGEN = COPENHAGEN,
): Period | null {
  const first = from ?? DEFAULT_FROM;
  const last = to ?? localDate(now, timeZone);
  if (first > last) return null;
  return {
    from: first,
    to: last,
    fromUnix: localMidnightUnix(first, timeZone),
    toUnix: localMidnightUnix(nextDay(last), timeZone),
    toIsExclusive: true,
    timeZone,
  };
}
