// The portal's HTML: one layout, escaping, and the texts of specs/platform.yaml (`platform.portal`).
// Every word a page shows comes from the spec through `t(name, params)`: the text and its
// parameters are escaped, so a name typed by a tenant never becomes markup.
import type { ServerResponse } from 'node:http';
import type { PlatformPortalText, PlatformPortalTextParams, PlatformSpec } from '#generated/platform/descriptor.ts';
import type { FailArgs } from '../handler-api/tool-context.ts';
import { formatText } from '../handler-api/tool-error.ts';

export const escapeHtml = (s: string): string =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

export type TextParams = Readonly<Record<string, string | number>>;

/** A portal text without parameters: a label, a heading, a word. */
export type PortalWord = {
  [K in keyof PlatformPortalTextParams]: Record<string, never> extends PlatformPortalTextParams[K] ? K : never;
}[keyof PlatformPortalTextParams];

/**
 * Renders portal texts by name: plain (`plain`) or escaped for HTML (`t`). Typed from the spec: an
 * unknown name or a missing parameter does not compile; a name chosen at run time is a `PortalWord`.
 */
export interface PortalTexts {
  plain(name: PortalWord): string;
  plain(...args: FailArgs<PlatformPortalTextParams>): string;
  t(name: PortalWord): string;
  t(...args: FailArgs<PlatformPortalTextParams>): string;
}

/** The same renderers with the names typed and the parameters not: for a page helper that passes both through. */
export interface NamedPortalTexts {
  plain(name: PlatformPortalText, params?: TextParams): string;
  t(name: PlatformPortalText, params?: TextParams): string;
}

export function portalTexts(platform: PlatformSpec): PortalTexts & NamedPortalTexts {
  const plain = (name: PlatformPortalText, params: TextParams = {}): string =>
    formatText(platform.portalTexts[name].text, params);
  return { plain, t: (name: PlatformPortalText, params?: TextParams) => escapeHtml(plain(name, params)) };
}

/** The navigation of a signed-in page: label text, path, and whether a member sees it. */
export interface NavItem {
  readonly text: string;
  readonly path: string;
}

export interface Layout {
  /** The page's heading. */
  readonly title: string;
  /** The document title (the browser tab); the heading when absent. */
  readonly documentTitle?: string;
  readonly body: string;
  /** Signed-in pages: navigation and the sign-out form. */
  readonly nav?: {
    readonly items: readonly NavItem[];
    readonly current: string;
    readonly signedInAs: string;
    readonly signOut: string;
    readonly csrf: string;
  };
  readonly headers?: Readonly<Record<string, string | string[]>>;
}

const STYLE = `body{font-family:system-ui,sans-serif;max-width:56rem;margin:0 auto;padding:0 1rem 3rem;
line-height:1.5;color:#1d2330}
header{display:flex;flex-wrap:wrap;align-items:center;gap:.5rem 1rem;border-bottom:1px solid #dde;padding:.6rem 0;
margin-bottom:1rem}
header nav ul{display:flex;flex-wrap:wrap;gap:.2rem .9rem;list-style:none;margin:0;padding:0}
header a{color:#1a44a8}header a[aria-current=page]{font-weight:700;color:#1d2330}
header form{margin-left:auto;display:flex;gap:.5rem;align-items:center}header form button{margin:0}
label{display:block;margin:.8rem 0 .2rem;font-weight:600}label.inline{display:inline;font-weight:400;margin:0}
label.check{font-weight:400;margin:.3rem 0}
fieldset{border:1px solid #dde;border-radius:4px;margin:1rem 0;padding:.4rem 1rem}
legend{font-weight:600;padding:0 .3rem}
input[type=text],input[type=password],input[type=email],input[type=number],select{width:100%;max-width:28rem;
padding:.5rem;border:1px solid #667;border-radius:4px;font-size:1rem;box-sizing:border-box}
button{margin-top:1rem;padding:.55rem 1.1rem;border:0;border-radius:4px;background:#2456c9;color:#fff;font-size:1rem;
cursor:pointer}
button.secondary{background:#fff;color:#1a44a8;border:1px solid #1a44a8}button.danger{background:#a11}
td button,td form{margin:0}
.note{color:#4a5160}.error{color:#a11;font-weight:600}
.ok{border-left:4px solid #1a7f37;padding:.4rem .8rem;background:#eef8f0}
.warning{border-left:4px solid #b36b00;padding:.4rem .8rem;background:#fff7e6}
.secret{font-family:monospace;font-size:1.05rem;background:#f3f4f7;padding:.5rem;border:1px solid #99a;
word-break:break-all}
table{border-collapse:collapse;width:100%;margin:.5rem 0}
.table-box{overflow-x:auto;max-width:100%;margin:.5rem 0}.table-box table{margin:0}
.table-box:focus-visible{outline:2px solid #2456c9;outline-offset:2px}
main p,main li{overflow-wrap:anywhere}.back{margin-top:2rem}
@media (max-width:40rem){h1{font-size:1.6rem}
.table-box table,.table-box tbody,.table-box tr,.table-box td,.table-box tbody th{display:block;width:auto}
.table-box caption{display:block}
.table-box thead{position:absolute;width:1px;height:1px;overflow:hidden;clip-path:inset(50%)}
.table-box tr{border:1px solid #dde;border-radius:6px;padding:.4rem .7rem;margin:.6rem 0}
.table-box td,.table-box tbody th{border:0;padding:.15rem 0;overflow-wrap:anywhere}
.table-box [data-label]::before{content:attr(data-label) ": ";font-weight:600;color:#4a5160}}
pre{overflow-x:auto;max-width:100%;background:#f3f4f7;border:1px solid #99a;padding:.5rem;font-size:.9rem}
code{overflow-wrap:anywhere}details{margin:.5rem 0}summary{cursor:pointer;color:#1a44a8}
td,th{text-align:left;padding:.35rem;border-bottom:1px solid #dde;vertical-align:top}
caption{text-align:left;font-weight:600;padding:.3rem 0}
.status-connected{color:#1a7f37;font-weight:600}.status-reconnect{color:#a11;font-weight:600}
.status-never{color:#4a5160;font-weight:600}
svg text{font-family:system-ui,sans-serif;font-size:12px;fill:#1d2330}
.chart-box{overflow-x:auto;max-width:100%}.chart-box svg{min-width:34rem}
.chart-box:focus-visible{outline:2px solid #2456c9;outline-offset:2px}`;

/**
 * Every table in a box of its own that scrolls sideways when the table is wider than the screen, so
 * the page itself never does (a phone at 375 px). The box is a named region a keyboard can focus
 * and scroll; its name is the table's caption (every portal table has one, already escaped).
 */
function scrollingTables(body: string): string {
  const text = (html: string) => html.replace(/<[^>]*>/g, '');
  return body.replace(
    /<table><caption>([\s\S]*?)<\/caption>([\s\S]*?)<\/table>/g,
    (_all, caption: string, inner: string) => {
      const labels = [...inner.matchAll(/<th scope="col">([\s\S]*?)<\/th>/g)].map((m) => text(m[1]!));
      return (
        `<div class="table-box" role="region" tabindex="0" aria-label="${text(caption)}"><table><caption>` +
        `${caption}</caption>${labelledCells(inner, labels)}</table></div>`
      );
    },
  );
}

/**
 * Each body cell gets its column's header as `data-label`, which a narrow screen shows before the
 * cell when the rows reflow into cards (STYLE's `@media`); headers and labels are already escaped.
 */
function labelledCells(inner: string, labels: readonly string[]): string {
  const at = inner.indexOf('<tbody>');
  if (at < 0 || labels.length === 0) return inner;
  const rows = inner.slice(at).replace(/<tr>([\s\S]*?)<\/tr>/g, (_row, cells: string) => {
    let column = 0;
    const labelled = cells.replace(/<(td|th)(?=[ >])/g, (cell) => {
      const label = labels[column++];
      return label ? `${cell} data-label="${label}"` : cell;
    });
    return `<tr>${labelled}</tr>`;
  });
  return inner.slice(0, at) + rows;
}

/** Writes a complete page: security headers, no caching, and the layout. */
export function sendPage(res: ServerResponse, status: number, layout: Layout): number {
  const nav = layout.nav;
  const header = nav
    ? `<header><nav aria-label="Portal"><ul>${nav.items
        .map(
          (i) =>
            `<li><a href="${escapeHtml(i.path)}"${i.path === nav.current ? ' aria-current="page"' : ''}>` +
            `${escapeHtml(i.text)}` +
            '</a></li>',
        )
        .join('')}</ul></nav>` +
      `<form method="post" action="/portal/sign-out"><span class="note">${escapeHtml(nav.signedInAs)}</span>` +
      `${csrfField(nav.csrf)}<button type="submit" class="secondary">${escapeHtml(nav.signOut)}</button>` +
      '</form></header>'
    : '';
  const html =
    '<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, ' +
    `initial-scale=1"><title>${escapeHtml(layout.documentTitle ?? layout.title)}</title><style>${STYLE}</style>` +
    `</head><body>${header}<main><h1>${escapeHtml(layout.title)}</h1>${scrollingTables(layout.body)}</main></body>` +
    '</html>';
  res.writeHead(status, {
    'content-type': 'text/html; charset=utf-8',
    'cache-control': 'no-store',
    // same-origin: a link's token never leaves in a Referer, and the browser still sends the Origin
    // of a form POST (with no-referrer it sends "null").
    'referrer-policy': 'same-origin',
    'x-frame-options': 'DENY',
    'x-content-type-options': 'nosniff',
    'content-security-policy':
      "default-src 'none'; style-src 'unsafe-inline'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; " +
      "base-uri 'none'",
    ...layout.headers,
  });
  res.end(html);
  return status;
}

/** A See Other redirect (after every successful POST, so a reload never posts twice). */
export function redirect(
  res: ServerResponse,
  location: string,
  headers: Readonly<Record<string, string | string[]>> = {},
): number {
  res.writeHead(303, { location, 'cache-control': 'no-store', 'referrer-policy': 'no-referrer', ...headers });
  res.end();
  return 303;
}

export const csrfField = (token: string): string => `<input type="hidden" name="csrf" value="${escapeHtml(token)}">`;

/** A form that posts to `action` with its CSRF token and one button (and hidden fields). */
export function postButton(
  action: string,
  csrf: string,
  label: string,
  hidden: Readonly<Record<string, string>> = {},
  className = '',
): string {
  const fields = Object.entries(hidden)
    .map(([k, v]) => `<input type="hidden" name="${escapeHtml(k)}" value="${escapeHtml(v)}">`)
    .join('');
  return (
    `<form method="post" action="${escapeHtml(action)}">${csrfField(csrf)}${fields}<button type="submit"` +
    `${className ? ` class="${className}"` : ''}` +
    `>${escapeHtml(label)}</button></form>`
  );
}

/**
 * A table of rows already rendered as `<tr>`s, under a caption and column headers (both already escaped). A wide
 * table scrolls in its own box (a focusable region named by the caption), never the page.
 */
export function dataTable(caption: string, headers: readonly string[], rows: string): string {
  const head = headers.map((h) => `<th scope="col">${h}</th>`).join('');
  // sendPage puts every table in its scrolling box (scrollingTables).
  return `<table><caption>${caption}</caption><thead><tr>${head}</tr></thead><tbody>${rows}</tbody></table>`;
}

/** A bar chart as server-rendered SVG (no script), with a text alternative. */
export function barChart(
  bars: ReadonlyArray<{ label: string; value: number }>,
  title: string,
  description: string,
): string {
  const width = 640;
  const barHeight = 22;
  const gap = 8;
  const labelWidth = 240;
  const max = Math.max(1, ...bars.map((b) => b.value));
  const height = Math.max(1, bars.length) * (barHeight + gap) + gap;
  const rows = bars
    .map((b, i) => {
      const y = gap + i * (barHeight + gap);
      const w = Math.round(((width - labelWidth - 60) * b.value) / max);
      return (
        `<text x="0" y="${y + 15}">${escapeHtml(b.label.length > 34 ? `${b.label.slice(0, 33)}…` : b.label)}</text>` +
        `<rect x="${labelWidth}" y="${y}" width="${Math.max(w, 1)}" height="${barHeight}" fill="#2456c9"></rect>` +
        `<text x="${labelWidth + Math.max(w, 1) + 6}" y="${y + 15}">${b.value}</text>`
      );
    })
    .join('');
  // In a box of its own that scrolls on a narrow screen, so the labels stay legible (not scaled down).
  return (
    `<div class="chart-box" role="region" tabindex="0" aria-label="${escapeHtml(title)}">` +
    `<svg role="img" aria-labelledby="chart-title chart-desc" width="100%" viewBox="0 0 ${width} ${height}" ` +
    `xmlns="http://www.w3.org/2000/svg"><title id="chart-title">${escapeHtml(title)}</title><desc id="chart-desc">` +
    `${escapeHtml(description)}` +
    `</desc>${rows}</svg></div>`
  );
}
