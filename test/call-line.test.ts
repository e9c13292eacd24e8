// The per-call `tool call` line is written by callLine without pino's generic path
// (docs/decisions/performance.md, 'The per-call line is written directly'): it must be the very line
// pino writes for the same fields, scrubbed by the call's redactor like every other line, and
// absent when the level leaves out info lines.
import { describe, expect, it } from 'vitest';
import { callLine, createLogger } from '../runtime/operations/observability.ts';
import { Redactor } from '../runtime/redact.ts';

function capture(level: string) {
  const lines: string[] = [];
  const logger = createLogger(level, { write: (line: string) => void lines.push(line) });
  return { lines, logger };
}

/** The line with its time set to 0: the two ways write the same moment only by chance. */
const timeless = (line: string) => line.replace(/"time":\d+/, '"time":0');

const FIELDS = {
  reqId: 'req-1',
  connector: 'register',
  instance: 'register-2',
  accountId: 'acc_1',
  userId: 'usr_1',
  tokenId: 'tok_1',
  traceId: '0af7651916cd43dd8448eb211c80319c',
  spanId: 'b7ad6b7169203331',
};

describe('callLine', () => {
  it('writes the line pino writes for the same fields, byte for byte', () => {
    const fast = capture('info');
    const slow = capture('info');
    const odd = {
      ...FIELDS,
      // A caller's own request id: quotes, a backslash, a control character, non-Latin text.
      reqId: 'a "quoted" \\ id\twith ø and 漢字',
      instance: 'x'.repeat(150),
    };
    for (const fields of [FIELDS, odd]) {
      callLine(fast.logger, fields, 'hent_virksomhed', 'ok', 12);
      slow.logger.info({ ...fields, tool: 'hent_virksomhed', outcome: 'ok', durationMs: 12 }, 'tool call');
    }
    expect(fast.lines).toHaveLength(2);
    expect(fast.lines.map(timeless)).toEqual(slow.lines.map(timeless));
    expect(JSON.parse(fast.lines[1]!)).toMatchObject({ reqId: odd.reqId, msg: 'tool call', level: 30 });
  });

  it('scrubs the fields with the call’s redactor and a bearer-shaped token anywhere', () => {
    const { lines, logger } = capture('info');
    const secret = 'S3cret-connection-password-42';
    new Redactor([secret]).run(() =>
      callLine(logger, { ...FIELDS, reqId: `echo ${secret} Bearer abcdefghijklmnopqrstuvwxyz012345` }, 't', 'ok', 1),
    );
    expect(lines).toHaveLength(1);
    expect(lines[0]).not.toContain(secret);
    expect(lines[0]).not.toContain('abcdefghijklmnopqrstuvwxyz012345');
    expect(JSON.parse(lines[0]!).reqId).toContain('[redacted]');
  });

  it('writes nothing below info, and follows a level changed later', () => {
    const { lines, logger } = capture('warn');
    callLine(logger, FIELDS, 't', 'ok', 1);
    expect(lines).toHaveLength(0);
    logger.level = 'info';
    callLine(logger, FIELDS, 't', 'ok', 1);
    expect(lines).toHaveLength(1);
  });

  it('takes pino’s own path for a logger it did not make (a child keeps its bindings)', () => {
    const { lines, logger } = capture('info');
    callLine(logger.child({ component: 'x' }), FIELDS, 't', 'error', 3);
    expect(JSON.parse(lines[0]!)).toMatchObject({ component: 'x', tool: 't', outcome: 'error', durationMs: 3 });
  });
});
