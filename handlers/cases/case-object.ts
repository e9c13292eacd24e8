// The spec's case object from an upstream case, whichever shape the upstream sent (upstreams/cases.md
// §3: `status` and `caseType` as objects or scalars; spec-only fields from their public sources).
import type { GetCaseResult } from '#generated/cases/types.ts';

type Raw = Record<string, unknown> | null | undefined;
const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);
const obj = (v: unknown): Raw => (v && typeof v === 'object' ? (v as Record<string, unknown>) : null);
/** `status`/`caseType` as the spec's `{ text }`, whether the upstream sends an object or a scalar. */
const textObject = (v: unknown): Raw => (typeof v === 'string' ? { text: v } : obj(v));

/** Upstream case → the spec's case object (spec-only fields from their sources, else null). */
export type CaseObject = NonNullable<GetCaseResult>;

export function toCase(raw: Record<string, unknown>): CaseObject {
  const economy = obj(raw.economy);
  const status = textObject(raw.status);
  const caseType = textObject(raw.caseType);
  const customer = obj(raw.customer);
  const foreman = obj(raw.foreman) ?? obj(raw.responsibleUser);
  const out: CaseObject = {
    id: Number(raw.id),
    caseNumber: raw.caseNumber === null || raw.caseNumber === undefined ? '' : String(raw.caseNumber),
    description: typeof raw.description === 'string' ? raw.description : null,
    status: status && typeof status.text === 'string' ? { text: status.text } : null,
    caseType: caseType && typeof caseType.text === 'string' ? { text: caseType.text } : null,
    customer: customer && typeof customer.name === 'string' ? { name: customer.name } : null,
    foreman: foreman && typeof foreman.fullName === 'string' ? { fullName: foreman.fullName } : null,
    offerTotal: num(raw.offerTotal) ?? num(economy?.revisedOffer) ?? num(economy?.offer),
  };
  if (typeof raw.parentCaseId === 'number') out.parentCaseId = raw.parentCaseId;
  out.subCases = Array.isArray(raw.subCases)
    ? raw.subCases.map((s) => ({ id: Number((s as { id: unknown }).id) }))
    : null;
  out.economy = economy
    ? {
        expectedCoverageRatio: num(economy.expectedCoverageRatio),
        revenue: num(economy.revenue),
        hoursSalesprice: num(economy.hoursSalesprice),
        hoursCostprice: num(economy.hoursCostprice),
        materialsSalesprice: num(economy.materialsSalesprice),
        materialsCostprice: num(economy.materialsCostprice),
      }
    : null;
  return out;
}
