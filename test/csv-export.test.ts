// The portal's CSV downloads (runtime/portal/pages/csv-export.ts): RFC 4180 quoting, CRLF lines, a
// byte order mark, and no cell a spreadsheet would run as a formula.
import { describe, expect, it } from 'vitest';
import { csvCell, csvText } from '../runtime/portal/pages/csv-export.ts';

describe('CSV export', () => {
  it('quotes what needs quoting and leaves plain cells alone', () => {
    expect(csvCell('find_cases')).toBe('find_cases');
    expect(csvCell('Ada, "the" admin')).toBe('"Ada, ""the"" admin"');
    expect(csvCell('two\nlines')).toBe('"two\nlines"');
    expect(csvCell(42)).toBe('42');
    expect(csvCell(null)).toBe('');
  });

  it('defuses cells a spreadsheet would run as a formula', () => {
    for (const cell of ['=HYPERLINK("x")', '+1', '-2', '@SUM(A1)', '\tx'])
      expect(csvCell(cell)).toBe(`"'${cell.replace(/"/g, '""')}"`);
  });

  it('writes a byte order mark, a header and CRLF lines', () => {
    expect(csvText(['a', 'b'], [['x', 1]])).toBe('\ufeffa,b\r\nx,1\r\n');
  });
});
