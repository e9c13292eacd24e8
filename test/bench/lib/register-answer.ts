// The tool's own work, for the floor and the SDK peers: the same upstream request body as
// `register__hent_virksomhed` sends and the same mapping of the answer (handlers/register/), so
// every server of a tools/call comparison does the tool's work and answers the same bytes; what is
// left between them is the platform's cost (checks, metering, logs, redaction, metrics).
import { mapCompanyDetail } from '../../../handlers/register/mapping.ts';
import { COMPANY_DETAIL_SOURCE, companyByCvrBody } from '../../../handlers/register/queries.ts';

/** The `_search` body the handler sends for one CVR number. */
export function registerRequestBody(cvrNummer: number): string {
  return JSON.stringify(companyByCvrBody(cvrNummer, COMPANY_DETAIL_SOURCE));
}

/** The tool result the gateway answers (text content, no structuredContent) for the upstream's answer. */
export function registerAnswer(
  upstreamJson: unknown,
  cvrNummer: number,
): { content: [{ type: 'text'; text: string }] } {
  const hits = (upstreamJson as { hits?: { hits?: { _source?: unknown }[] } }).hits?.hits ?? [];
  const company = hits.map((hit) => mapCompanyDetail(hit._source)).find((c) => c?.cvrNummer === cvrNummer);
  return { content: [{ type: 'text', text: JSON.stringify(company ?? { found: false, cvrNummer }) }] };
}
