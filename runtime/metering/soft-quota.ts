// "Quota reached" in soft fair-use mode (docs/decisions/operations.md, 'Mail goes by SMTP, or to a
// local outbox without SMTP_URL'): soft mode never reads the quota on a call, so the usage meter
// tells this watch which accounts each flush wrote and how many units. Per account and month it
// keeps an estimate — the stored month total read once (and again every RESEED_MS, so units other
// replicas wrote are caught up), plus the units this process flushed since — and only when the
// estimate reaches the limit does it read the usage record to confirm and mail the administrators
// once (MailNotices claims the month's notice in the store, so one replica mails). Nothing here is
// on the call path: it runs after a flush, and a failed read or mail is logged, never thrown.
import type { MailNotices } from '../mail/notices.ts';
import type { Account, UsageRow } from '../store/store.ts';
import type { UsageMeter } from './usage.ts';

/** How long an estimate counts only this process's flushes before the stored total is read again. */
export const RESEED_MS = 10 * 60_000;

interface Estimate {
  units: number;
  readAt: number;
  noticed: boolean;
}

export interface SoftQuotaDeps {
  readonly meter: () => UsageMeter;
  readonly account: (accountId: string) => Account | undefined;
  readonly notices: Pick<MailNotices, 'quotaReached'>;
  readonly now: () => Date;
}

export class SoftQuotaWatch {
  readonly #d: SoftQuotaDeps;
  /** By `account|month`. */
  readonly #estimates = new Map<string, Estimate>();

  constructor(deps: SoftQuotaDeps) {
    this.#d = deps;
  }

  /** After a flush: the rows it wrote. */
  flushed(rows: readonly UsageRow[]): Promise<void> {
    const units = new Map<string, number>();
    for (const r of rows) units.set(r.accountId, (units.get(r.accountId) ?? 0) + r.costUnits);
    const checks: Promise<void>[] = [];
    for (const [accountId, n] of units) {
      const account = this.#d.account(accountId);
      if (account?.fairUseMode === 'soft') checks.push(this.#check(account, n).catch(() => {}));
    }
    return Promise.all(checks).then(() => undefined);
  }

  async #check(account: Account, units: number): Promise<void> {
    const meter = this.#d.meter();
    const now = this.#d.now();
    const month = meter.month(now);
    const key = `${account.id}|${month}`;
    let estimate = this.#estimates.get(key);
    if (estimate?.noticed) return;
    const limit = meter.limitOf(account);
    if (!estimate || now.getTime() - estimate.readAt >= RESEED_MS) {
      const record = await meter.usageRecord(account, now);
      estimate = { units: record.fairUse.used, readAt: now.getTime(), noticed: false };
      this.#estimates.set(key, estimate);
    } else estimate.units += units;
    if (estimate.units < limit) return;
    // Reached by the estimate: the stored record decides (other replicas, a raised quota).
    const record = await meter.usageRecord(account, now);
    estimate.units = record.fairUse.used;
    estimate.readAt = now.getTime();
    if (record.fairUse.withinQuota) return;
    estimate.noticed = true;
    await this.#d.notices.quotaReached(account, month, record.fairUse.used, record.fairUse.limit, false);
  }
}
