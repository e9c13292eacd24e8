// The confirmation an action that ends something asks for first, without script (docs/decisions/
// portal.md, 'Revoking asks first; one row per connected assistant'): the first POST answers this
// page, the same button posts again with `confirm=yes`, and a link goes back without acting.
import { escapeHtml, postButton } from '../html.ts';
import type { PortalKit, SignedInRequest } from '../kit.ts';

export interface ConfirmStep {
  /** The question, plain text (the page's heading). */
  readonly title: string;
  /** What ends, already escaped (a `t(...)`). */
  readonly text: string;
  /** Where the confirmed form posts (the same path as the first POST). */
  readonly action: string;
  /** The button's label, plain text (the same as the first button's). */
  readonly button: string;
  /** The first form's fields, posted again with `confirm=yes`. */
  readonly hidden: Readonly<Record<string, string>>;
  /** The page the cancel link goes back to. */
  readonly cancel: string;
}

/** Answers the confirmation page (200); the caller acts only on a POST with `confirm=yes`. */
export function confirmStep(kit: PortalKit, r: SignedInRequest, ask: ConfirmStep): number {
  const { t } = kit.text;
  return kit.view(
    r,
    200,
    ask.title,
    `<p class="warning">${ask.text}</p>` +
      postButton(ask.action, r.signedIn.csrf, ask.button, { ...ask.hidden, confirm: 'yes' }, 'danger') +
      `<p class="back"><a href="${escapeHtml(ask.cancel)}">${t('confirm_cancel')}</a></p>`,
  );
}
