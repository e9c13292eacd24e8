// The mails the gateway sends, worded by specs/platform.yaml (the `mail_*` portal texts): each
// builder takes what its text names and answers a message for the mailer. Links with a secret go
// into the body only; the mailer logs the kind of a mail, never its body.
import type { PlatformPortalText, PlatformSpec } from '#generated/platform/descriptor.ts';
import { formatText } from '../handler-api/tool-error.ts';
import type { MailMessage } from './mailer.ts';

type Params = Readonly<Record<string, string | number>>;
const say = (platform: PlatformSpec, name: PlatformPortalText, params: Params = {}) =>
  formatText(platform.portalTexts[name].text, params);

export interface Person {
  readonly email: string;
  readonly name: string;
}

/** An invitation: the set-password link of a new user (or one sent again); no inviter: the operator (CLI). */
export function invitationMail(
  platform: PlatformSpec,
  to: Person,
  about: { readonly account: string; readonly inviter?: string; readonly link: string },
): MailMessage {
  const days = Math.round(platform.limits.passwordLinkValidSeconds / 86_400);
  const inviter = about.inviter ?? say(platform, 'mail_inviter_operator');
  return {
    kind: 'invitation',
    to: to.email,
    subject: say(platform, 'mail_invite_subject', { account: about.account }),
    text: say(platform, 'mail_invite_body', { name: to.name, account: about.account, inviter, link: about.link, days }),
  };
}

/** A password reset asked for on the sign-in page (or by an operator). */
export function passwordResetMail(platform: PlatformSpec, to: Person, link: string): MailMessage {
  const minutes = Math.round(platform.limits.passwordResetValidSeconds / 60);
  return {
    kind: 'password_reset',
    to: to.email,
    subject: say(platform, 'mail_reset_subject'),
    text: say(platform, 'mail_reset_body', { name: to.name, email: to.email, link, minutes }),
  };
}

/** A connection the upstream refused: someone must reconnect it. */
export function reconnectMail(
  platform: PlatformSpec,
  to: Person,
  about: { readonly account: string; readonly instance_id: string; readonly connector: string; readonly url: string },
): MailMessage {
  return {
    kind: 'reconnect',
    to: to.email,
    subject: say(platform, 'mail_reconnect_subject', { instance_id: about.instance_id }),
    text: say(platform, 'mail_reconnect_body', { name: to.name, ...about }),
  };
}

/** The account's fair-use quota of a month is used up (hard mode: calls are refused from now on). */
export function quotaReachedMail(
  platform: PlatformSpec,
  to: Person,
  about: {
    readonly account: string;
    readonly month: string;
    readonly used: number;
    readonly limit: number;
    readonly hard: boolean;
    readonly url: string;
  },
): MailMessage {
  const { hard, ...rest } = about;
  return {
    kind: 'quota_reached',
    to: to.email,
    subject: say(platform, 'mail_quota_subject', { account: about.account, month: about.month }),
    text: say(platform, 'mail_quota_body', {
      name: to.name,
      ...rest,
      consequence: say(platform, hard ? 'mail_quota_hard' : 'mail_quota_soft'),
    }),
  };
}
