// Identifiers in e-conomic paths (upstreams/invoicing.md §2 "Path encoding of identifiers"): the
// upstream's own substitution table, not percent-encoding, for the characters it names; anything
// else standard URL-encoded. A split accounting year `2023/2024` is `/accounting-years/2023_6_2024`
// (§3 #1): never `%2F`, which the upstream answers with 404.

const SUBSTITUTIONS: Readonly<Record<string, string>> = {
  '<': '_0_',
  '>': '_1_',
  '*': '_2_',
  '%': '_3_',
  ':': '_4_',
  '&': '_5_',
  '/': '_6_',
  '\\': '_7_',
  _: '_8_',
  ' ': '_9_',
  '?': '_10_',
  '.': '_11_',
  '#': '_12_',
  '+': '_13_',
};

/** One path segment for an identifier (a number, a product number, an accounting year). */
export function encodeIdentifier(value: string | number): string {
  let out = '';
  for (const character of String(value)) out += SUBSTITUTIONS[character] ?? encodeURIComponent(character);
  return out;
}

/** `/accounting-years/{year}` with the year encoded (`2023/2024` → `2023_6_2024`). */
export function yearPath(year: string): string {
  return `/accounting-years/${encodeIdentifier(year)}`;
}

/** `/accounts/{accountNumber}/accounting-years/{year}`. */
export function accountYearPath(accountNumber: number, year: string): string {
  return `/accounts/${encodeIdentifier(accountNumber)}${yearPath(year)}`;
}
