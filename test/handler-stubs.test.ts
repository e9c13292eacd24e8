// Lists every handler that is still a generated stub, so no stub can pass as done: the list must
// equal test/pending-handlers.ts exactly, and a stub fails loudly when called.
import { describe, expect, it } from 'vitest';
import { registry } from '../generated/registry.ts';
import { HandlerNotImplementedError, stub, stubInfo } from '../runtime/handler-api/stub.ts';
import { pendingHandlers } from './pending-handlers.ts';

const handlerMaps: Record<string, Readonly<Record<string, unknown>>> = Object.fromEntries(
  Object.entries(registry).map(([key, c]) => [key, c.handlers]),
);

function stubsPresent(): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const [key, map] of Object.entries(handlerMaps)) {
    const stubs = Object.entries(map)
      .filter(([, h]) => stubInfo(h))
      .map(([name]) => name);
    if (stubs.length) out[key] = stubs;
  }
  return out;
}

describe('handler stubs', () => {
  it('every connector of the specs has a handler for every tool', () => {
    for (const [key, { descriptor }] of Object.entries(registry)) {
      expect(Object.keys(handlerMaps[key] ?? {}).sort(), key).toEqual(descriptor.tools.map((t) => t.name).sort());
    }
  });

  it('the stubs still present are exactly the pending list', () => {
    const present = stubsPresent();
    const total = Object.values(present).reduce((n, l) => n + l.length, 0);
    console.info(
      `${total} handler stub(s) still present:\n${Object.entries(present)
        .map(([k, l]) => `  ${k}: ${l.join(', ')}`)
        .join('\n')}`,
    );
    const pending = Object.fromEntries(
      Object.entries(pendingHandlers)
        .filter(([, l]) => l.length > 0)
        .map(([k, l]) => [k, [...l].sort()]),
    );
    const sorted = Object.fromEntries(Object.entries(present).map(([k, l]) => [k, [...l].sort()]));
    expect(sorted).toEqual(pending);
  });

  it('a stub fails loudly when called', async () => {
    // Every shipped tool has its handler now; the generator still writes this stub for a new tool.
    const handler = stub('demo', 'get_thing');
    await expect(handler({}, {})).rejects.toThrow(HandlerNotImplementedError);
    expect(stubInfo(handler)).toEqual({ connector: 'demo', tool: 'get_thing' });
    expect(stubInfo(async () => undefined)).toBeUndefined();
  });
});
