// The page a browser gets when the OAuth authorization server cannot send an authorization request
// back to its client (an unknown client, an unregistered redirect URI): a portal page with a clean
// text per error code instead of the SDK's JSON (docs/decisions/portal.md, 'OAuth errors are portal pages').
import type { ServerResponse } from 'node:http';
import type { PlatformSpec } from '#generated/platform/descriptor.ts';
import { type PortalWord, portalTexts, sendPage } from '../html.ts';

/** The text of each OAuth error code a browser may meet; anything else gets the general one. */
const ERROR_TEXT: Readonly<Record<string, PortalWord>> = {
  invalid_client: 'oauth_page_invalid_client',
  invalid_request: 'oauth_page_invalid_request',
};

/** Renders the authorization server's error page (the code is shown for support, never a description). */
export function authorizeErrorPage(
  platform: PlatformSpec,
): (res: ServerResponse, status: number, error: string) => void {
  const { t, plain } = portalTexts(platform);
  return (res, status, error) => {
    const code = /^[a-z_]{1,40}$/.test(error) ? error : 'server_error';
    const text = ERROR_TEXT[code] ?? (status >= 500 ? 'oauth_page_server_error' : 'oauth_page_other');
    sendPage(res, status, {
      title: plain('oauth_page_title'),
      body:
        `<p class="error">${t(text)}</p>` +
        `<p class="note">${t('oauth_page_code', { code })}</p>` +
        `<p class="back"><a href="/">${t('back_to_start')}</a></p>`,
    });
  };
}
