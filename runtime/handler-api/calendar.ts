// Calendar days and months in a time zone, with the platform's Intl support (no hand-made offsets).

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(timeZone: string): Intl.DateTimeFormat {
  let f = formatters.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' });
    formatters.set(timeZone, f);
  }
  return f;
}

/** `YYYY-MM-DD` of the instant in the time zone. */
export function localDate(at: Date, timeZone: string): string {
  const parts = formatter(timeZone).formatToParts(at);
  const get = (type: string) => parts.find((p) => p.type === type)!.value;
  return `${get('year')}-${get('month')}-${get('day')}`;
}

/** `YYYY-MM` of the instant in the time zone (the billing month). */
export function localMonth(at: Date, timeZone: string): string {
  return localDate(at, timeZone).slice(0, 7);
}

const offsetFormatters = new Map<string, Intl.DateTimeFormat>();

/** Offset of the time zone from UTC at an instant, in milliseconds (positive east of UTC). */
function offsetMs(at: number, timeZone: string): number {
  let f = offsetFormatters.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    offsetFormatters.set(timeZone, f);
  }
  const p = Object.fromEntries(f.formatToParts(new Date(at)).map((x) => [x.type, x.value]));
  const asUtc = Date.UTC(
    Number(p.year),
    Number(p.month) - 1,
    Number(p.day),
    Number(p.hour),
    Number(p.minute),
    Number(p.second),
  );
  return asUtc - Math.floor(at / 1000) * 1000;
}

/** The instant of local midnight at the start of `date` (YYYY-MM-DD) in the time zone. */
export function localMidnight(date: string, timeZone: string): Date {
  const [y, m, d] = date.split('-').map(Number) as [number, number, number];
  const wallClock = Date.UTC(y, m - 1, d);
  // Two rounds settle the offset even when the guess lands on the other side of a DST change.
  let guess = wallClock - offsetMs(wallClock, timeZone);
  guess = wallClock - offsetMs(guess, timeZone);
  return new Date(guess);
}
