// A small portal client over fetch, as a browser without JavaScript uses the portal: it keeps its
// cookies, reads each form's CSRF token from the page it got, and sends it back with the form.
import { hashPassword } from '../../runtime/portal/session.ts';
import type { Repositories } from '../../runtime/store/store.ts';

/** A password for tests: long, not a word that appears in any text. */
export const TEST_PASSWORD = 'Qz7-portal-Vx93-kept';

export async function givePassword(
  store: Pick<Repositories, 'portal'>,
  userId: string,
  password = TEST_PASSWORD,
): Promise<void> {
  await store.portal.setPasswordHash(userId, await hashPassword(password));
}

export interface PortalResponse {
  readonly status: number;
  readonly html: string;
  readonly location: string | null;
  readonly headers: Headers;
}

/** The value of the first `name="csrf"` field of a page (undefined when the page has no form). */
export function csrfOf(html: string): string | undefined {
  return /name="csrf" value="([^"]+)"/.exec(html)?.[1];
}

export class PortalClient {
  readonly base: string;
  readonly cookies = new Map<string, string>();
  /** The CSRF token of the last page fetched. */
  csrf: string | undefined;

  constructor(base: string) {
    this.base = base;
  }

  get cookieHeader(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }

  #keep(headers: Headers): void {
    for (const line of headers.getSetCookie()) {
      const [pair, ...attributes] = line.split(';');
      const eq = pair!.indexOf('=');
      const name = pair!.slice(0, eq).trim();
      const value = pair!.slice(eq + 1).trim();
      if (attributes.some((a) => /max-age=0$/i.test(a.trim())) || value === '') this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }

  async request(
    path: string,
    init: {
      method?: string;
      form?: Record<string, string | string[]>;
      csrf?: string | false;
      headers?: Record<string, string>;
    } = {},
  ): Promise<PortalResponse> {
    const url = path.startsWith('http') ? path : `${this.base}${path}`;
    const headers: Record<string, string> = {
      ...(this.cookies.size ? { cookie: this.cookieHeader } : {}),
      ...init.headers,
    };
    let body: string | undefined;
    if (init.form) {
      const params = new URLSearchParams();
      const csrf = init.csrf === undefined ? this.csrf : init.csrf;
      if (csrf) params.append('csrf', csrf);
      for (const [k, v] of Object.entries(init.form))
        for (const one of Array.isArray(v) ? v : [v]) params.append(k, one);
      body = params.toString();
      headers['content-type'] = 'application/x-www-form-urlencoded';
    }
    const res = await fetch(url, {
      method: init.method ?? (init.form ? 'POST' : 'GET'),
      headers,
      body,
      redirect: 'manual',
    });
    this.#keep(res.headers);
    const html = await res.text();
    const csrf = csrfOf(html);
    if (csrf) this.csrf = csrf;
    return { status: res.status, html, location: res.headers.get('location'), headers: res.headers };
  }

  get(path: string): Promise<PortalResponse> {
    return this.request(path);
  }

  /** POSTs a form with the CSRF token of the last page (or the one given; `false`: none). */
  post(path: string, form: Record<string, string | string[]>, csrf?: string | false): Promise<PortalResponse> {
    return this.request(path, { form, ...(csrf === undefined ? {} : { csrf }) });
  }

  /** Signs in through the sign-in form; answers the POST's response (303 on success). */
  async signIn(email: string, password = TEST_PASSWORD): Promise<PortalResponse> {
    await this.get('/portal/sign-in');
    return this.post('/portal/sign-in', { email, password });
  }
}

const signedIn = new Map<string, PortalClient>();

/**
 * A portal client signed in as `user` (given the test password first if it has none), with its
 * session's CSRF token read: what a connect link needs since it is bound to its user.
 */
export async function portalAs(
  gw: { url: string; store: Pick<Repositories, 'portal'> },
  user: { id: string; email: string },
): Promise<PortalClient> {
  const key = `${gw.url}|${user.id}`;
  const known = signedIn.get(key);
  if (known && (await known.get('/portal')).status === 200) return known;
  if (!(await gw.store.portal.getPasswordHash(user.id))) await givePassword(gw.store, user.id);
  const client = new PortalClient(gw.url);
  const done = await client.signIn(user.email);
  if (done.status !== 303) throw new Error(`portal sign-in of ${user.email} answered ${done.status}`);
  await client.get('/portal');
  signedIn.set(key, client);
  return client;
}

/**
 * `fetch` through a signed-in portal client: its cookies go along, and a form body gets the
 * session's CSRF token. Answers a plain Response (redirects are not followed).
 */
export async function fetchAs(
  client: PortalClient,
  url: string,
  init: { method?: string; body?: string; headers?: Record<string, string> } = {},
): Promise<Response> {
  const method = init.method ?? 'GET';
  const form = method === 'POST' ? Object.fromEntries(new URLSearchParams(init.body ?? '')) : undefined;
  const r = await client.request(url, {
    method,
    ...(form ? { form } : {}),
    ...(init.headers ? { headers: init.headers } : {}),
  });
  return new Response(r.status === 204 || r.status === 304 ? null : r.html, { status: r.status, headers: r.headers });
}
