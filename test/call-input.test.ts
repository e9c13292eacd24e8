// A handler's input requests (runtime/pipeline/call-input.ts, docs/decisions/person-confirmed-writes.md,
// 'A handler asks the client for input'): the requestState seals the handler's state under the
// caller, endpoint, tool and arguments; a state that does not open, names other arguments or expired,
// and inputResponses that are not an object of objects, are refused before the handler runs, their
// fair-use reservation given back. `ctx.requireInput` refuses to ask for what the client did not declare.
import { describe, expect, it } from 'vitest';
import { InputRequired, NO_INPUT } from '../runtime/handler-api/input-requests.ts';
import type { Reservation } from '../runtime/metering/usage.ts';
import {
  InputRefused,
  type InputServices,
  inputRequiredResult,
  inputRound,
  openInput,
} from '../runtime/pipeline/call-input.ts';
import type { CallToolResult } from '../runtime/pipeline/call-types.ts';
import { Redactor } from '../runtime/redact.ts';
import { newSecretKey, Vault } from '../runtime/secrets/vault.ts';
import { registry as fixtureRegistry } from './fixtures/conformance-connector/generated/registry.ts';
import { testContext } from './support/tool-context.ts';

const EVERY_KIND = { elicitation: true, sampling: true, roots: true };
const ASK = new InputRequired({ user_name: { method: 'elicitation/create', params: { message: 'Name?' } } }, 'Alice');

function services(now = 1_000_000, vault = new Vault({ 1: newSecretKey() })) {
  const released: Reservation[] = [];
  const s: InputServices & { clock: number } = {
    vault,
    clock: now,
    now: () => s.clock,
    stateSeconds: 600,
    roundsPerCall: 3,
    release: async (reservation) => {
      released.push(reservation);
    },
  };
  return { s, released };
}

function plan(over: { account?: string; user?: string; instance?: string; tool?: string; args?: object } = {}) {
  return {
    identity: { account: { id: over.account ?? 'acc_1' }, user: { id: over.user ?? 'usr_1' } },
    endpoint: { instanceId: over.instance ?? 'conformance' },
    tool: { name: over.tool ?? 'test_input_required_result_multi_round' },
    args: (over.args ?? { id: 7 }) as Record<string, unknown>,
    reservation: { id: 'reservation-1' } as unknown as Reservation,
    signal: new AbortController().signal as AbortSignal,
  };
}

/** The plan of a retry: the same call with the client's retry channel. */
const retry = (p: ReturnType<typeof plan>, requestState: unknown, inputResponses: unknown = {}) => ({
  ...p,
  personConfirm: { client: EVERY_KIND, requestState, inputResponses },
});

describe('a handler asks the client for input (call-input.ts)', () => {
  it("answers input_required with the requests and a sealed state that comes back as the handler's", async () => {
    const { s } = services();
    const asked = inputRequiredResult(s, plan(), ASK);
    expect(asked).toMatchObject({ content: [], resultType: 'input_required', inputRequests: ASK.requests });
    expect(typeof asked.requestState).toBe('string');
    // Sealed, not merely encoded: neither the state nor the arguments can be read in it.
    expect(asked.requestState).not.toContain('Alice');
    expect(Buffer.from(asked.requestState!, 'base64url').toString('latin1')).not.toContain('Alice');
    const answers = { user_name: { action: 'accept', content: { name: 'Bob' } } };
    const input = await openInput(s, retry(plan(), asked.requestState, answers));
    expect(input).toEqual({ responses: answers, state: 'Alice', client: EVERY_KIND });
  });

  it("refuses to seal a handler's state too long to be opened again", () => {
    const { s } = services();
    const long = new InputRequired(ASK.requests, 'x'.repeat(16_384));
    expect(() => inputRequiredResult(s, plan(), long)).toThrow(/requestState of \d+ characters/);
    expect(inputRequiredResult(s, plan(), new InputRequired(ASK.requests, 'x'.repeat(10_000))).requestState).toEqual(
      expect.any(String),
    );
  });

  it('refuses a state for another account, user, instance, tool or arguments, altered, or expired', async () => {
    const { s, released } = services();
    const state = inputRequiredResult(s, plan(), ASK).requestState!;
    const others = [
      plan({ account: 'acc_2' }),
      plan({ user: 'usr_2' }),
      plan({ instance: 'conformance-2' }),
      plan({ tool: 'test_input_required_result_request_state' }),
      plan({ args: { id: 8 } }),
    ];
    for (const other of others)
      await expect(openInput(s, retry(other, state))).rejects.toMatchObject({ code: 'input_state_invalid' });
    await expect(openInput(s, retry(plan(), `${state}-TAMPERED`))).rejects.toBeInstanceOf(InputRefused);
    await expect(openInput(s, retry(plan(), 42))).rejects.toMatchObject({ code: 'input_state_invalid' });
    // Another gateway's secret: a state it sealed does not open here.
    const foreign = inputRequiredResult(services().s, plan(), ASK).requestState!;
    await expect(openInput(s, retry(plan(), foreign))).rejects.toMatchObject({ code: 'input_state_invalid' });
    s.clock += 600_000;
    await expect(openInput(s, retry(plan(), state))).rejects.toMatchObject({ code: 'input_state_invalid' });
    s.clock -= 1;
    expect(openInput(s, retry(plan(), state))).toMatchObject({ state: 'Alice' });
    // Every refusal gave the call's fair-use reservation back (nothing is metered).
    expect(released).toHaveLength(others.length + 4);
  });

  it('refuses inputResponses that are not an object of objects; answers without a state take no state', async () => {
    const { s } = services();
    for (const bad of [null, 12, 'x', [], { user_name: 12345 }, { user_name: null }, { user_name: [] }])
      await expect(openInput(s, retry(plan(), undefined, bad))).rejects.toMatchObject({
        code: 'input_responses_invalid',
      });
    const answers = { user_name: { action: 'accept', content: { name: 'Bob' } }, extra: { x: 1 } };
    expect(openInput(s, retry(plan(), undefined, answers))).toEqual({
      responses: answers,
      state: undefined,
      client: EVERY_KIND,
    });
    // A request without the 2026 channel (the 2025 revisions) has no input at all.
    expect(openInput(s, plan())).toBe(NO_INPUT);
  });

  it('refuses a round asking for an undeclared kind: -32021 on 2026-07-28, the generic text on 2025', async () => {
    const ctx = testContext({
      descriptor: fixtureRegistry.conformance.descriptor,
      tool: 'test_input_required_result_elicitation',
      credential: null,
    });
    expect(ctx.input).toBe(NO_INPUT);
    const sample = { q: { method: 'sampling/createMessage' as const, params: {} } };
    const both = { ...sample, r: { method: 'roots/list' as const, params: {} }, e: ASK.requests.user_name! };
    let thrown: unknown;
    try {
      ctx.requireInput(both, 'kept');
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(InputRequired);
    const { s } = services();
    const never = async (): Promise<CallToolResult> => {
      throw new Error('no rerun');
    };
    const modern = { ...plan(), personConfirm: { client: { elicitation: true, sampling: false, roots: false } } };
    await expect(inputRound(s, modern, thrown as InputRequired, never)).rejects.toMatchObject({
      code: 'missing_client_capability',
      requiredCapabilities: { sampling: {}, roots: {} },
    });
    // The 2025 revisions declare nothing per request: the handler's defect, answered with the generic text.
    const asked: unknown[] = [];
    const legacy = { ...plan(), personConfirm: { askPerson: async (q: never) => asked.push(q) } };
    await expect(inputRound(s, legacy, new InputRequired(sample), never)).rejects.toThrow(
      /sampling: the client cannot/,
    );
    await expect(inputRound(s, plan(), new InputRequired(ASK.requests), never)).rejects.toThrow(/elicitation/);
    expect(asked).toEqual([]);
  });

  it('2025: asks on the call stream, runs the handler again with the answers, at most N rounds', async () => {
    const { s } = services();
    const questions: unknown[] = [];
    const replies: unknown[] = [{ action: 'accept', content: { name: 'Bob' } }, 42];
    const askPerson = async (question: never) => {
      questions.push(question);
      return replies.shift();
    };
    const p = { ...plan(), personConfirm: { askPerson } };
    // A client that declared form elicitation at initialize may be asked for elicitation only.
    expect(openInput(s, p)).toEqual({
      ...NO_INPUT,
      client: { ...EVERY_KIND, sampling: false, roots: false },
    });
    const two = new InputRequired(
      {
        a: { method: 'elicitation/create', params: { message: 'A?' } },
        b: { method: 'elicitation/create', params: { message: 'B?' } },
      },
      'kept',
    );
    const reruns: Array<typeof p> = [];
    const done: CallToolResult = { content: [{ type: 'text', text: 'done' }] };
    const answered = await inputRound(s, p, two, async (next) => {
      reruns.push(next);
      return done;
    });
    expect(answered).toBe(done);
    expect(questions).toEqual([{ message: 'A?' }, { message: 'B?' }]);
    // The second answer was not an object: recorded as a cancel, never passed on as sent.
    const next = reruns[0]!;
    expect(openInput(s, next)).toEqual({
      responses: { a: { action: 'accept', content: { name: 'Bob' } }, b: { action: 'cancel' } },
      state: 'kept',
      client: { elicitation: true, sampling: false, roots: false },
    });
    // A handler that keeps asking is stopped after roundsPerCall (3) rounds.
    let rounds = 0;
    const again = (q: typeof p): Promise<CallToolResult> => {
      rounds++;
      return inputRound(s, q, two, again);
    };
    await expect(inputRound(s, p, two, again)).rejects.toThrow(/more than 3 rounds/);
    expect(rounds).toBe(3);
    // A question quoting the connection's secret (an upstream echoed it) goes out scrubbed.
    const secret = 'zq-Distinct-Secret-4471';
    const sent: unknown[] = [];
    const scrubbing = {
      ...p,
      redactor: Redactor.of({ kind: 'api_key', apiKey: secret }),
      personConfirm: { askPerson: async (q: never) => sent.push(q) && { action: 'decline' } },
    };
    const quoting = new InputRequired({ a: { method: 'elicitation/create', params: { message: `key ${secret}?` } } });
    await inputRound(s, scrubbing, quoting, async () => done);
    expect(JSON.stringify(sent)).not.toContain(secret);
    expect(sent).toHaveLength(1);
    // A call cancelled while the person decides ends: nothing is asked again, nothing rerun.
    const controller = new AbortController();
    const cancelled = {
      ...p,
      signal: controller.signal,
      personConfirm: {
        askPerson: async () => {
          controller.abort(new Error('cancelled'));
          throw new Error('cancelled');
        },
      },
    };
    await expect(inputRound(s, cancelled, two, async () => done)).rejects.toThrow('cancelled');
  });
});
