// The identity provider's HTTP answers: OAuth JSON (never cached), HTML pages, redirects, and the
// small credential helpers (constant-time compare, client_secret_basic).
import { timingSafeEqual } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { type JsonStyle, sendJson as sendKitJson } from '../http-kit.ts';

/** Token and control answers are never cached (RFC 6749 §5.1). */
const OAUTH_JSON: JsonStyle = { headers: { 'cache-control': 'no-store', pragma: 'no-cache' } };

export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  sendKitJson(res, status, body, headers, OAUTH_JSON);
}

export function sendHtml(res: ServerResponse, status: number, html: string): void {
  res.writeHead(status, {
    'content-type': 'text/html; charset=utf-8',
    'cache-control': 'no-store',
    'content-length': Buffer.byteLength(html),
  });
  res.end(html);
}

export function redirect(res: ServerResponse, status: 302 | 303, target: string): void {
  res.writeHead(status, { location: target, 'cache-control': 'no-store', 'content-length': 0 });
  res.end();
}

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

export function page(title: string, body: string): string {
  return `<!DOCTYPE html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">\
<title>${escapeHtml(title)}</title></head>
<body>
<main>
${body}
</main>
</body>
</html>
`;
}

export function safeEqual(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** Splits a client_secret_basic header (RFC 6749 §2.3.1: both parts form-urlencoded). */
export function basicCredentials(header: string | undefined): { id: string; secret: string } | null | 'malformed' {
  if (header === undefined) return null;
  const match = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header);
  if (match === null) return 'malformed';
  const decoded = Buffer.from(match[1]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return 'malformed';
  try {
    const unform = (s: string) => decodeURIComponent(s.replace(/\+/g, ' '));
    return { id: unform(decoded.slice(0, colon)), secret: unform(decoded.slice(colon + 1)) };
  } catch {
    return 'malformed';
  }
}
