// The confirmation logic shared by both protocol eras (runtime/pipeline/person-confirm.ts): the
// elicitation made from a preview, the accept check, the sealed requestState (bindings, expiry,
// single use) and the 2025 path through a fake askPerson.
import { describe, expect, it } from 'vitest';
import { platformDescriptor } from '../generated/platform/descriptor.ts';
import { formatText } from '../runtime/handler-api/tool-error.ts';
import {
  accepts,
  askPerson,
  type AskPerson,
  confirmElicitation,
  judgeRetry,
  personStep,
  type PersonServices,
  sealRequestState,
  type WritePreview,
} from '../runtime/pipeline/person-confirm.ts';
import { newSecretKey, Vault } from '../runtime/secrets/vault.ts';
import { previewDigest } from '../runtime/pipeline/write-guard.ts';

const vault = new Vault({ 1: newSecretKey() });
const preview: WritePreview = {
  action: 'create_draft_invoice',
  summary: 'Create a draft invoice for customer 1001 (2 × 150.00 DKK)',
  request: { method: 'POST', path: '/invoices/drafts', body: { lines: [{ quantity: 2, unitNetPrice: 150 }] } },
  confirmHint: 'repeat with confirm: true',
};
const texts = {
  message: platformDescriptor.instructions.person_confirm!,
  field: platformDescriptor.instructions.person_confirm_field!,
};
const binding = { accountId: 'acc_1', userId: 'usr_1', instanceId: 'invoicing', tool: 'create_draft_invoice' };
const args = { customerNumber: 1001, confirm: true };
const yes = { confirm: { action: 'accept', content: { confirm: true } } };
const NOW = 1_800_000_000_000;

function services(now = NOW, used = new Set<string>()): PersonServices {
  return {
    vault,
    now: () => now,
    platform: platformDescriptor,
    writes: {
      claimWrite: async (key: string) => {
        if (used.has(key)) return { claimed: false as const, outcome: null };
        used.add(key);
        return { claimed: true as const };
      },
    },
  };
}
const plan = (personConfirm: object, extra: object = {}) => ({
  identity: { account: { id: 'acc_1' }, user: { id: 'usr_1' } },
  endpoint: { instanceId: 'invoicing' },
  tool: { name: 'create_draft_invoice', write: true },
  args,
  signal: new AbortController().signal,
  personConfirm: { elicitation: true, ...personConfirm },
  ...extra,
});

describe('the elicitation and the accept check', () => {
  it('shows action, summary, request and amounts, and asks for one required boolean', () => {
    const e = confirmElicitation(preview, texts);
    expect(e.message).toContain(preview.summary);
    expect(e.message).toContain('POST /invoices/drafts');
    expect(e.message).toContain('"unitNetPrice": 150');
    expect(e.message).toContain('create_draft_invoice');
    expect(e.requestedSchema).toEqual({
      type: 'object',
      properties: {
        confirm: { type: 'boolean', title: expect.stringContaining('create_draft_invoice'), default: false },
      },
      required: ['confirm'],
    });
  });
  it('accepts only accept with confirm: true', () => {
    expect(accepts({ action: 'accept', content: { confirm: true } })).toBe(true);
    for (const a of [
      { action: 'accept', content: { confirm: false } },
      { action: 'accept', content: { confirm: 'true' } },
      { action: 'accept' },
      { action: 'decline', content: { confirm: true } },
      { action: 'cancel' },
      null,
      'accept',
    ])
      expect(accepts(a), JSON.stringify(a)).toBe(false);
  });
});

describe('the sealed requestState', () => {
  const state = sealRequestState(vault, binding, args, preview, NOW + 1000);
  it('carries no argument or preview in clear', () => {
    expect(state).not.toContain('1001');
    expect(state).not.toContain('invoices');
  });
  it('opens for the same binding and arguments with an accepting answer', () => {
    expect(judgeRetry(vault, binding, args, state, yes, NOW)).toMatchObject({
      kind: 'write',
      previewDigest: previewDigest(preview),
    });
  });
  it('is refused for another user, instance, tool, key, arguments, or when tampered', () => {
    for (const other of [
      { ...binding, userId: 'usr_2' },
      { ...binding, accountId: 'acc_2' },
      { ...binding, instanceId: 'invoicing-2' },
      { ...binding, tool: 'create_customer' },
    ])
      expect(judgeRetry(vault, other, args, state, yes, NOW)).toEqual({
        kind: 'refuse',
        code: 'confirm_state_invalid',
      });
    const otherKey = new Vault({ 1: newSecretKey() });
    expect(judgeRetry(otherKey, binding, args, state, yes, NOW).kind).toBe('refuse');
    expect(judgeRetry(vault, binding, { ...args, customerNumber: 1002 }, state, yes, NOW)).toEqual({
      kind: 'refuse',
      code: 'confirm_state_invalid',
    });
    const flipped = `${state.slice(0, 20)}${state[20] === 'A' ? 'B' : 'A'}${state.slice(21)}`;
    expect(judgeRetry(vault, binding, args, flipped, yes, NOW).kind).toBe('refuse');
    expect(judgeRetry(vault, binding, args, 42, yes, NOW).kind).toBe('refuse');
  });
  it('expires', () => {
    expect(judgeRetry(vault, binding, args, state, yes, NOW + 1000)).toEqual({
      kind: 'refuse',
      code: 'confirm_state_expired',
    });
  });
  it('a declined answer to a valid state writes nothing', () => {
    expect(judgeRetry(vault, binding, args, state, { confirm: { action: 'decline' } }, NOW)).toEqual({
      kind: 'refuse',
      code: 'confirm_declined',
    });
  });
});

describe('the pipeline steps', () => {
  it('asks first, then writes once; a replay is answered as used', async () => {
    const used = new Set<string>();
    const s = services(NOW, used);
    expect(await personStep(s, plan({}))).toEqual({ kind: 'ask' });
    const asked = await askPerson(s, plan({}), { preview });
    expect(asked.kind).toBe('input_required');
    const result = (asked as { result: { resultType?: string; requestState?: string } }).result;
    expect(result.resultType).toBe('input_required');
    const retry = plan({ requestState: result.requestState, inputResponses: yes });
    expect(await personStep(s, retry)).toEqual({ kind: 'write', previewDigest: previewDigest(preview) });
    const again = await personStep(s, retry);
    expect(again).toMatchObject({ kind: 'answer', code: 'confirm_state_used' });
    expect((again as { result: { content: Array<{ text: string }> } }).result.content[0]!.text).toBe(
      platformDescriptor.errors.confirm_state_used!.text,
    );
  });
  it('an expired state names the lifetime', async () => {
    const sealed = sealRequestState(vault, binding, args, preview, NOW + 5);
    const step = await personStep(services(NOW + 10), plan({ requestState: sealed, inputResponses: yes }));
    const seconds = platformDescriptor.limits.personConfirmSeconds!;
    expect((step as { result: { content: Array<{ text: string }> } }).result.content[0]!.text).toBe(
      formatText(platformDescriptor.errors.confirm_state_expired!.text, { seconds }),
    );
  });
  it('leaves reads, previews and clients without the capability alone', async () => {
    const s = services();
    expect(await personStep(s, plan({}, { tool: { name: 'list_customers', write: false } }))).toEqual({ kind: 'none' });
    expect(await personStep(s, plan({}, { args: { confirm: 'true' } }))).toEqual({ kind: 'none' });
    expect(await personStep(s, { ...plan({}), personConfirm: { elicitation: false } })).toEqual({ kind: 'none' });
  });
  it('2025 revisions: asks through askPerson and writes only on acceptance', async () => {
    const asks: unknown[] = [];
    const fake =
      (answer: unknown): AskPerson =>
      async (params) => {
        asks.push(params);
        return answer as Awaited<ReturnType<AskPerson>>;
      };
    const accepted = await askPerson(
      services(),
      plan({ askPerson: fake({ action: 'accept', content: { confirm: true } }) }),
      {
        preview,
      },
    );
    expect(accepted).toEqual({ kind: 'write', previewDigest: previewDigest(preview) });
    expect(asks[0]).toEqual(confirmElicitation(preview, texts));
    for (const answer of [{ action: 'decline' }, { action: 'cancel' }, { action: 'accept', content: {} }])
      expect(await askPerson(services(), plan({ askPerson: fake(answer) }), { preview })).toMatchObject({
        kind: 'answer',
        code: 'confirm_declined',
      });
    const failing: AskPerson = () => Promise.reject(new Error('client went away'));
    expect(await askPerson(services(), plan({ askPerson: failing }), { preview })).toMatchObject({
      code: 'confirm_declined',
    });
    // The accepted preview then guards the write: personStep writes it without asking again.
    expect(await personStep(services(), plan({ accepted: previewDigest(preview) }))).toEqual({
      kind: 'write',
      previewDigest: previewDigest(preview),
    });
  });
});
