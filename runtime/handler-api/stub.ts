// Handler stubs written by the code generator for tools that have no implementation yet.
// A stub fails loudly when called; test/handler-stubs.test.ts lists every stub still present.

export class HandlerNotImplementedError extends Error {
  readonly connector: string;
  readonly tool: string;
  constructor(connector: string, tool: string) {
    super(`Handler ${connector}.${tool} is a generated stub and has not been implemented`);
    this.connector = connector;
    this.tool = tool;
    this.name = 'HandlerNotImplementedError';
  }
}

const STUB = Symbol.for('connector-gateway.stub');

export type StubHandler = ((args: unknown, ctx: unknown) => Promise<never>) & {
  readonly [STUB]: { connector: string; tool: string };
};

export function stub(connector: string, tool: string): StubHandler {
  const handler = async (): Promise<never> => {
    throw new HandlerNotImplementedError(connector, tool);
  };
  return Object.assign(handler, { [STUB]: { connector, tool } });
}

export function stubInfo(handler: unknown): { connector: string; tool: string } | undefined {
  return typeof handler === 'function' && STUB in handler ? (handler as StubHandler)[STUB] : undefined;
}
