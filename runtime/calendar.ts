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
