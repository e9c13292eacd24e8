// Migration 16: what a user's lifecycle and the mail to people need beyond the platform tables.
// Part of `migrations` (migrations.ts); never edited once released.
// Typed by shape, not by importing Migration: migrations.ts imports this file.
export const USER_MIGRATIONS: readonly { version: number; name: string; sql: string }[] = [
  {
    version: 16,
    name: 'mail_notices',
    // Notices mailed to an account once (docs/decisions/operations.md, 'Mail goes by SMTP, or to a
    // local outbox without SMTP_URL'): the first replica whose insert of (account, notice) succeeds
    // sends the mail, e.g. `quota:2026-11` when hard fair use first refuses a call in a month.
    // Reset links use password_links (the portal migration); removal relies on ON DELETE CASCADE.
    sql: `
CREATE TABLE mail_notices (
  account_id text NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  notice text NOT NULL,
  sent_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (account_id, notice)
);
`,
  },
];
