// Notices mailed to an account's administrators: a connection the upstream refused (once per
// episode: the store marks it once, whichever replica sees it first) and the hard fair-use quota
// reached (once per month, claimed in the store; a per-process set spares the hot path the query
// after the first refusal). Sent in the background: a call never waits for mail, and a failing
// mail or store is logged, never the call's answer (docs/decisions/operations.md, 'Mail goes by
// SMTP, or to a local outbox without SMTP_URL').
import type { PlatformSpec } from '#generated/platform/descriptor.ts';
import type { Logger } from 'pino';
import type { Account, Repositories } from '../store/store.ts';
import type { Mailer, MailMessage } from './mailer.ts';
import { type Person, quotaReachedMail, reconnectMail } from './messages.ts';

export interface NoticeDeps {
  readonly store: Pick<Repositories, 'users' | 'notices'>;
  readonly mail: Mailer;
  readonly platform: PlatformSpec;
  readonly log: Logger;
  readonly config: { readonly publicBaseUrl: string };
}

export class MailNotices {
  readonly #d: NoticeDeps;
  /** `account|month` of quota notices this process has claimed or seen claimed. */
  readonly #quotaSeen = new Set<string>();

  constructor(deps: NoticeDeps) {
    this.#d = deps;
  }

  /** The connection of `instanceId` was marked to reconnect just now (by this call). */
  reconnect(account: Account, instanceId: string, connector: string): Promise<void> {
    const url = `${this.#d.config.publicBaseUrl}/portal/connections`;
    return this.#toAdmins(account, (to) =>
      reconnectMail(this.#d.platform, to, { account: account.name, instance_id: instanceId, connector, url }),
    );
  }

  /**
   * The month's quota is reached: hard fair use refused a call, or (`hard` false) a soft-mode account
   * went over it (runtime/metering/soft-quota.ts). The first time in the month mails the administrators.
   */
  quotaReached(account: Account, month: string, used: number, limit: number, hard = true): Promise<void> {
    const key = `${account.id}|${month}`;
    if (this.#quotaSeen.has(key)) return Promise.resolve();
    this.#quotaSeen.add(key);
    const url = `${this.#d.config.publicBaseUrl}/portal/usage`;
    return this.#d.store.notices.claimNotice(account.id, `quota:${month}`).then(
      (claimed) =>
        claimed
          ? this.#toAdmins(account, (to) =>
              quotaReachedMail(this.#d.platform, to, { account: account.name, month, used, limit, hard, url }),
            )
          : undefined,
      (error: unknown) => {
        this.#quotaSeen.delete(key);
        this.#d.log.warn({ accountId: account.id, err: { message: (error as Error)?.message } }, 'notice not claimed');
      },
    );
  }

  async #toAdmins(account: Account, build: (to: Person) => MailMessage): Promise<void> {
    try {
      const admins = (await this.#d.store.users.listUsers(account.id)).filter((u) => u.role === 'admin');
      await Promise.all(admins.map((u) => this.#d.mail.send(build(u))));
    } catch (error) {
      this.#d.log.warn({ accountId: account.id, err: { message: (error as Error)?.message } }, 'notice not mailed');
    }
  }
}
