import type { InvoicingHandler } from '../../generated/invoicing/contract.ts';
import { economicGet } from './wire.ts';

/**
 * `invoicing__validate_connection`: one authenticated GET of the upstream root (upstreams/invoicing.md
 * §2 "`GET /` lists endpoints (cheap auth check)"). A 401/403 ends in the runtime's reconnect text.
 */
export const validateConnection: InvoicingHandler<'validate_connection'> = async (_args, ctx) => {
  await economicGet(ctx, '/');
  return { connected: true };
};
