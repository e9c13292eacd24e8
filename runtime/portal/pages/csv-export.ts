// A CSV download of a portal table (the Calls and Usage pages): RFC 4180 quoting, CRLF lines, a
// UTF-8 byte order mark (so spreadsheet programs read names right), and a cell that a spreadsheet
// would run as a formula (=, +, -, @, tab, CR first) prefixed with an apostrophe.
import type { ServerResponse } from 'node:http';

export type CsvCell = string | number | null;

const FORMULA = /^[=+\-@\t\r]/;

export function csvCell(value: CsvCell): string {
  if (value === null) return '';
  if (typeof value === 'number') return String(value);
  const safe = FORMULA.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(safe) || safe !== value ? `"${safe.replace(/"/g, '""')}"` : safe;
}

export function csvText(header: readonly string[], rows: readonly (readonly CsvCell[])[]): string {
  return `\ufeff${[header, ...rows].map((row) => row.map(csvCell).join(',')).join('\r\n')}\r\n`;
}

/** Sends a CSV file as a download named `filename` (letters, digits, dots and dashes only). */
export function sendCsv(
  res: ServerResponse,
  filename: string,
  header: readonly string[],
  rows: readonly (readonly CsvCell[])[],
): number {
  res.writeHead(200, {
    'content-type': 'text/csv; charset=utf-8',
    'content-disposition': `attachment; filename="${filename.replace(/[^A-Za-z0-9.-]/g, '-')}"`,
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'same-origin',
  });
  res.end(csvText(header, rows));
  return 200;
}
