// Mail to people (invitations, password resets, a connection to reconnect, a quota reached), sent
// with nodemailer: by SMTP when SMTP_URL is set, otherwise written to a local outbox directory in
// the data directory, one .eml file per mail (docs/decisions/operations.md, 'Mail goes by SMTP, or to
// a local outbox without SMTP_URL'). A mail's body may hold a secret link: it is never logged, and
// neither is the SMTP password; a failed send is logged with the kind of mail and the error only.
import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import nodemailer from 'nodemailer';
import type { Logger } from 'pino';
import type { GatewayConfig } from '../config/settings.ts';

/** The outbox directory under the data directory (without SMTP_URL). */
export const OUTBOX_DIR = 'outbox';
/** The sender when MAIL_FROM is not set. */
export const DEFAULT_MAIL_FROM = 'Connector gateway <no-reply@localhost>';

/** What a mail is about: logged and counted instead of its subject or body. */
export type MailKind = 'invitation' | 'password_reset' | 'reconnect' | 'quota_reached';

export interface MailMessage {
  readonly kind: MailKind;
  readonly to: string;
  readonly subject: string;
  readonly text: string;
}

export interface Mailer {
  /** `smtp` (SMTP_URL) or `outbox` (the directory `where`). */
  readonly via: 'smtp' | 'outbox';
  /** Where mail goes, safe to show: the SMTP server without its credentials, or the outbox directory. */
  readonly where: string;
  /** Sends one mail; false (logged without its content) when it could not be handed on. Never throws. */
  send(message: MailMessage): Promise<boolean>;
  close(): void;
}

/** An SMTP URL as it may be shown: scheme, host and port, never the user information. */
export function describeSmtpUrl(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}`;
  } catch {
    return 'smtp (unparsable URL)';
  }
}

/** The mailer the configuration asks for: SMTP with SMTP_URL, the data directory's outbox without. */
export function createMailer(config: Pick<GatewayConfig, 'smtpUrl' | 'mailFrom' | 'dataDir'>, log: Logger): Mailer {
  const from = config.mailFrom ?? DEFAULT_MAIL_FROM;
  const failed = (message: MailMessage, error: unknown): false => {
    const err = error as { code?: unknown; responseCode?: unknown; message?: unknown };
    // The error's own words name the server's answer; the message's body (a link) is not in them.
    log.warn(
      { mail: message.kind, err: { code: err?.code, responseCode: err?.responseCode, message: String(err?.message) } },
      'mail not sent',
    );
    return false;
  };
  if (config.smtpUrl) {
    // Bounded waits: the team page waits for an invitation to be handed on, and nodemailer's own
    // defaults (2 minutes to connect, 10 of silence) would hold it that long on a silent server.
    const transport = nodemailer.createTransport(
      { url: config.smtpUrl, connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 30_000 },
      { from },
    );
    return {
      via: 'smtp',
      where: describeSmtpUrl(config.smtpUrl),
      async send(message) {
        try {
          await transport.sendMail({ to: message.to, subject: message.subject, text: message.text });
          log.info({ mail: message.kind }, 'mail sent');
          return true;
        } catch (error) {
          return failed(message, error);
        }
      },
      close: () => transport.close(),
    };
  }
  const dir = join(config.dataDir, OUTBOX_DIR);
  const transport = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' }, { from });
  return {
    via: 'outbox',
    where: dir,
    async send(message) {
      try {
        const info = await transport.sendMail({ to: message.to, subject: message.subject, text: message.text });
        mkdirSync(dir, { recursive: true, mode: 0o700 });
        const stamp = new Date().toISOString().replace(/[:.]/g, '-');
        const name = `${stamp}-${message.kind}-${randomBytes(4).toString('hex')}.eml`;
        // The file holds the link: readable by the gateway's user only, like the rest of the data directory.
        writeFileSync(join(dir, name), info.message as Buffer, { mode: 0o600 });
        log.info({ mail: message.kind, outbox: dir }, 'mail written to the outbox');
        return true;
      } catch (error) {
        return failed(message, error);
      }
    },
    close: () => transport.close(),
  };
}
