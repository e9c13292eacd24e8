// The platform's own contract is enforced by the type checker like a connector's
// (`npm run typecheck` runs over this file): each `@ts-expect-error` below must stay an error, or
// tsc fails because the directive is unused. A misspelled platform code, a missing text parameter
// and an undeclared platform limit are compile errors; the runtime assertions keep vitest honest.
import { describe, expect, it } from 'vitest';
import type { PlatformSpec } from '../generated/platform/descriptor.ts';
import { platformDescriptor } from '../generated/platform/descriptor.ts';
import type { GatewayContext } from '../runtime/gateway-context.ts';
import { protocolText } from '../runtime/protocol-text.ts';
import type { Pipeline } from '../runtime/pipeline/pipeline.ts';
import type { PortalTexts } from '../runtime/portal/html.ts';

function misuses(pipeline: Pipeline, g: GatewayContext, portal: PortalTexts): void {
  pipeline.platformText('generic');
  pipeline.platformText('credential_missing', { connector_id: 'books' });
  // @ts-expect-error a misspelled platform code
  pipeline.platformText('generc');
  // @ts-expect-error a platform text without its parameter
  pipeline.platformText('credential_missing');
  // @ts-expect-error a misspelled parameter
  pipeline.platformText('credential_missing', { connector: 'books' });
  // @ts-expect-error a parameter the text does not have
  pipeline.platformText('unknown_tool', { tool: 'x' });

  const ttl: number = g.platform.limits.listCacheTtlMs;
  // @ts-expect-error a platform limit the spec does not declare
  void g.platform.limits.listCacheTtlMsx;
  // @ts-expect-error nor through the descriptor itself
  void platformDescriptor.limits.auditPageEntriez;
  void ttl;

  void protocolText('body_too_large', { max_bytes: 1 });
  // @ts-expect-error a misspelled protocol error code
  void protocolText('body_too_larg', { max_bytes: 1 });
  // @ts-expect-error a protocol error text without its parameter
  void protocolText('body_too_large');

  void portal.t('sign_in_title');
  void portal.plain('page_title', { title: 'x' });
  // @ts-expect-error a misspelled portal text
  void portal.t('sign_in_titel');
  // @ts-expect-error a portal text without its parameter
  void portal.plain('page_title');

  void g.platform.instructions.reconnect;
  // @ts-expect-error an instruction the spec does not have
  void g.platform.instructions.reconect;
}

describe('platform contract types', () => {
  it('compiles only the platform texts and limits the spec declares (checked by tsc)', () => {
    expect(typeof misuses).toBe('function');
    const spec: PlatformSpec = platformDescriptor;
    expect(Object.keys(spec.limits)).toContain('listCacheTtlMs');
  });
});
