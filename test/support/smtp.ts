// A real SMTP server for tests (smtp-server, the Nodemailer project's server library), with the
// mails it received parsed by mailparser: the gateway sends through its SMTP client, not a mock.
import type { AddressInfo } from 'node:net';
import { type ParsedMail, simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';

export interface TestSmtp {
  /** `smtp://user:pass@127.0.0.1:<port>`: the SMTP_URL to configure. */
  readonly url: string;
  readonly mails: ParsedMail[];
  /** The user names and passwords the server was given (AUTH PLAIN/LOGIN). */
  readonly logins: { username: string; password: string }[];
  /** Waits until `n` mails have arrived (the test's own timeout ends a wait that never does). */
  waitFor(n: number): Promise<ParsedMail[]>;
  close(): Promise<void>;
}

export async function startSmtp(user: string, pass: string): Promise<TestSmtp> {
  const mails: ParsedMail[] = [];
  const logins: { username: string; password: string }[] = [];
  const waiters: (() => void)[] = [];
  const server = new SMTPServer({
    // Plain SMTP on the loopback: no TLS certificate to trust in tests.
    disabledCommands: ['STARTTLS'],
    allowInsecureAuth: true,
    logger: false,
    onAuth(auth, _session, callback) {
      logins.push({ username: auth.username ?? '', password: auth.password ?? '' });
      if (auth.username === user && auth.password === pass) callback(null, { user: auth.username });
      else callback(new Error('Invalid username or password'));
    },
    onData(stream, _session, callback) {
      simpleParser(stream).then(
        (mail) => {
          mails.push(mail);
          for (const wake of waiters.splice(0)) wake();
          callback();
        },
        (error: Error) => callback(error),
      );
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.server.address() as AddressInfo;
  return {
    url: `smtp://${encodeURIComponent(user)}:${encodeURIComponent(pass)}@127.0.0.1:${port}`,
    mails,
    logins,
    async waitFor(n) {
      while (mails.length < n) await new Promise<void>((resolve) => waiters.push(resolve));
      return mails;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The set-password link in a mail's text. */
export function linkIn(mail: ParsedMail): string {
  const found = /https?:\/\/\S+\/portal\/set-password\/[A-Za-z0-9_-]+/.exec(mail.text ?? '');
  if (!found) throw new Error(`no set-password link in: ${mail.text}`);
  return found[0];
}

/** The address a mail went to. */
export function recipient(mail: ParsedMail): string {
  const to = Array.isArray(mail.to) ? mail.to[0] : mail.to;
  return to?.value[0]?.address ?? '';
}
