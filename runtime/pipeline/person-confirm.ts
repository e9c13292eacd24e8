// Writes the person confirms (docs/decisions/person-confirmed-writes.md, 'The person confirms a
// write through elicitation'): when the client declares the elicitation capability, a confirm-gated
// write (`confirm: true`) first shows the person its preview and writes only on an accepting answer
// to that very preview. One module for both protocol eras:
// - 2026-07-28: `tools/call` answers `input_required` with the elicitation and a `requestState`
//   sealed by the vault (AES-256-GCM, bound to account, user, instance and tool; carrying a digest
//   of the arguments, a digest of the preview, an expiry and a single-use nonce);
// - 2025-06-18 / 2025-11-25: `askPerson` sends `elicitation/create` on the call's event stream.
import { createHash, randomBytes } from 'node:crypto';
import { formatText } from '../handler-api/tool-error.ts';
import type { PlatformDescriptor } from '../handler-api/descriptor-types.ts';
import type { InputKinds, StreamRound } from '../handler-api/input-requests.ts';
import type { Vault } from '../secrets/vault.ts';
import type { Repositories } from '../store/store.ts';
import { argumentsDigest, previewDigest } from './write-guard.ts';

/** The key of the one input request a confirmation sends (2026 `inputRequests` / `inputResponses`). */
export const CONFIRM_INPUT = 'confirm';
/** The boolean field of the elicitation's form. */
export const CONFIRM_FIELD = 'confirm';

/** An elicitation in form mode, as `elicitation/create` and a 2026 input request carry it. */
export interface ElicitationParams {
  readonly mode: 'form';
  readonly message: string;
  readonly requestedSchema: {
    readonly type: 'object';
    readonly properties: Readonly<Record<string, { type: 'boolean'; title: string; default: boolean }>>;
    readonly required: readonly string[];
  };
}

/** The person's answer to an elicitation (the MCP ElicitResult). */
export interface PersonAnswer {
  readonly action: 'accept' | 'decline' | 'cancel';
  readonly content?: Readonly<Record<string, unknown>>;
}

/** Asks the person through the client (2025 revisions: `elicitation/create` on the call's event stream). */
export type AskPerson = (params: ElicitationParams, signal: AbortSignal) => Promise<PersonAnswer>;

/** What the MCP layer hands the pipeline about confirming by the person (absent: today's flow). */
export interface PersonConfirmRequest {
  /** The client declared the elicitation capability. */
  readonly elicitation: boolean;
  /** 2026-07-28: the retry channel of the request (`inputResponses`, `requestState`), as sent. */
  readonly inputResponses?: unknown;
  readonly requestState?: unknown;
  /** 2025 revisions: asks the person on the call's event stream (provided by the per-call context). */
  readonly askPerson?: AskPerson;
  /** 2026-07-28: what the client may be asked by any handler (runtime/pipeline/call-input.ts). */
  readonly client?: InputKinds | undefined;
  /** 2025 revisions: the answers the gateway collected on the call's stream for the handler's last round. */
  readonly askedOnStream?: StreamRound | undefined;
  /** Set by the pipeline itself: the digest of the preview the person accepted in this very call (2025). */
  readonly accepted?: string;
}

/** The preview a write tool's guard answers without `confirm` (runtime/pipeline/write-guard.ts). */
export interface WritePreview {
  readonly action: string;
  readonly summary: string;
  readonly request: { readonly method: string; readonly path: string; readonly body?: unknown };
  readonly confirmHint?: string;
}

/** The preview in a handler's result (`{ preview: {...} }`), or undefined. */
export function previewOf(result: unknown): WritePreview | undefined {
  if (!result || typeof result !== 'object') return undefined;
  const preview = (result as { preview?: unknown }).preview;
  if (!preview || typeof preview !== 'object') return undefined;
  const p = preview as Record<string, unknown>;
  const request = p.request as Record<string, unknown> | undefined;
  if (typeof p.action !== 'string' || typeof p.summary !== 'string' || !request) return undefined;
  if (typeof request.method !== 'string' || typeof request.path !== 'string') return undefined;
  return preview as WritePreview;
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('base64url');
}

/** The platform's texts the elicitation is made of (specs/platform.yaml `instructions`). */
export interface ConfirmTexts {
  readonly message: string;
  readonly field: string;
}

/** The elicitation showing the person the preview (action, what is sent, amounts in the body) and asking to confirm. */
export function confirmElicitation(preview: WritePreview, texts: ConfirmTexts): ElicitationParams {
  const { method, path, body } = preview.request;
  const params = {
    action: preview.action,
    summary: preview.summary,
    method,
    path,
    body: body === undefined ? '' : JSON.stringify(body, null, 2),
  };
  return {
    mode: 'form',
    message: formatText(texts.message, params),
    requestedSchema: {
      type: 'object',
      properties: { [CONFIRM_FIELD]: { type: 'boolean', title: formatText(texts.field, params), default: false } },
      required: [CONFIRM_FIELD],
    },
  };
}

/** Only `accept` with the box ticked confirms: decline, cancel, or accept without `confirm: true` do not. */
export function accepts(answer: unknown): boolean {
  if (!answer || typeof answer !== 'object') return false;
  const { action, content } = answer as { action?: unknown; content?: unknown };
  return (
    action === 'accept' &&
    !!content &&
    typeof content === 'object' &&
    (content as Record<string, unknown>)[CONFIRM_FIELD] === true
  );
}

/** 2025 revisions: asks the person; true only on an accepting answer. A failing client answers false. */
export async function askToConfirm(
  askPerson: AskPerson,
  preview: WritePreview,
  texts: ConfirmTexts,
  signal: AbortSignal,
): Promise<boolean> {
  try {
    return accepts(await askPerson(confirmElicitation(preview, texts), signal));
  } catch {
    return false;
  }
}

/** Who and what a requestState is for: authenticated (AEAD additional data), not stored. */
export interface StateBinding {
  readonly accountId: string;
  readonly userId: string;
  readonly instanceId: string;
  readonly tool: string;
}

interface StateClaims {
  readonly v: 1;
  /** Arguments digest. */
  readonly a: string;
  /** Preview digest. */
  readonly p: string;
  /** Expiry, epoch ms. */
  readonly e: number;
  /** Single-use nonce. */
  readonly n: string;
}

function bindingText(b: StateBinding): string {
  return ['person-confirm', b.accountId, b.userId, b.instanceId, b.tool].join('\u0000');
}

/** Seals a requestState for one preview of one call. */
export function sealRequestState(
  vault: Vault,
  binding: StateBinding,
  args: Readonly<Record<string, unknown>>,
  preview: WritePreview,
  expiresAt: number,
): string {
  const claims: StateClaims = {
    v: 1,
    a: argumentsDigest(args),
    p: previewDigest(preview),
    e: expiresAt,
    n: randomBytes(16).toString('base64url'),
  };
  return vault.sealToken(JSON.stringify(claims), bindingText(binding));
}

/** What a retried call with a requestState may do. */
export type RetryVerdict =
  | { readonly kind: 'write'; readonly previewDigest: string; readonly nonce: string }
  | { readonly kind: 'refuse'; readonly code: 'confirm_state_invalid' | 'confirm_state_expired' | 'confirm_declined' };

/**
 * The verdict on a 2026 retry: the state must open under this binding (else tampered or another
 * caller's), name these arguments, not be expired, and the answer to its input request must accept.
 * Single use is the caller's part (the nonce is claimed in the store before writing).
 */
export function judgeRetry(
  vault: Vault,
  binding: StateBinding,
  args: Readonly<Record<string, unknown>>,
  state: unknown,
  inputResponses: unknown,
  now: number,
): RetryVerdict {
  const plain =
    typeof state === 'string' && state.length <= 4096 ? vault.openToken(state, bindingText(binding)) : undefined;
  let claims: StateClaims | undefined;
  try {
    claims = plain === undefined ? undefined : (JSON.parse(plain) as StateClaims);
  } catch {
    claims = undefined;
  }
  if (claims?.v !== 1 || claims.a !== argumentsDigest(args)) return { kind: 'refuse', code: 'confirm_state_invalid' };
  if (!(now < claims.e)) return { kind: 'refuse', code: 'confirm_state_expired' };
  const answer =
    inputResponses && typeof inputResponses === 'object'
      ? (inputResponses as Record<string, unknown>)[CONFIRM_INPUT]
      : undefined;
  if (!accepts(answer)) return { kind: 'refuse', code: 'confirm_declined' };
  return { kind: 'write', previewDigest: claims.p, nonce: claims.n };
}

/** The store key that marks a requestState's nonce as used (the write-dedup claims, shared by replicas). */
export function usedStateKey(nonce: string): string {
  return `person-confirm:${sha256(nonce)}`;
}

/** The 2026 `input_required` result asking the person to confirm the preview. */
export function inputRequired(preview: WritePreview, texts: ConfirmTexts, requestState: string) {
  return {
    resultType: 'input_required' as const,
    inputRequests: {
      [CONFIRM_INPUT]: { method: 'elicitation/create', params: confirmElicitation(preview, texts) },
    },
    requestState,
  };
}

/** What the pipeline's confirmation steps need from the gateway, made once. */
export interface PersonServices {
  readonly vault: Vault;
  readonly writes: Pick<Repositories['writes'], 'claimWrite'>;
  /** Epoch ms. */
  readonly now: () => number;
  readonly platform: Pick<PlatformDescriptor, 'errors' | 'instructions' | 'limits'>;
}

/** The plan of a call, as far as the confirmation steps read it. */
interface PersonPlan {
  readonly identity: { readonly account: { readonly id: string }; readonly user: { readonly id: string } };
  readonly endpoint: { readonly instanceId: string };
  readonly tool: { readonly name: string; readonly write: boolean };
  readonly args: Readonly<Record<string, unknown>>;
  readonly signal: AbortSignal;
  readonly personConfirm?: PersonConfirmRequest | undefined;
}

type ConfirmCode =
  | 'confirm_declined'
  | 'confirm_state_invalid'
  | 'confirm_state_expired'
  | 'confirm_state_used'
  | 'confirm_preview_changed';

/** A text result answered instead of the write (nothing written). */
interface Answer {
  readonly kind: 'answer';
  readonly code: ConfirmCode;
  readonly result: {
    content: Array<{ type: 'text'; text: string }>;
    isError?: boolean;
    resultType?: 'input_required';
    inputRequests?: Record<string, unknown>;
    requestState?: string;
  };
}

/** What the run step does about the person: nothing, ask first, write what they accepted, or answer. */
export type PersonStep =
  | { readonly kind: 'none' }
  | { readonly kind: 'ask' }
  | { readonly kind: 'write'; readonly previewDigest: string }
  | Answer;

function answer(s: PersonServices, code: ConfirmCode, params: Record<string, string | number>): Answer {
  const text = formatText(s.platform.errors[code]?.text ?? s.platform.errors.generic!.text, params);
  // A declined confirmation is the person's choice, not a fault; the others are errors.
  const result =
    code === 'confirm_declined'
      ? { content: [{ type: 'text' as const, text }] }
      : { content: [{ type: 'text' as const, text }], isError: true };
  return { kind: 'answer', code, result };
}

function textsOf(s: PersonServices): ConfirmTexts {
  return {
    message: s.platform.instructions.person_confirm ?? '',
    field: s.platform.instructions.person_confirm_field ?? '',
  };
}

function ttlMs(s: PersonServices): number {
  return (s.platform.limits as Readonly<Record<string, number>>).personConfirmSeconds! * 1000;
}

function bindingOf(plan: PersonPlan): StateBinding {
  return {
    accountId: plan.identity.account.id,
    userId: plan.identity.user.id,
    instanceId: plan.endpoint.instanceId,
    tool: plan.tool.name,
  };
}

/**
 * Before the handler runs: whether this call must ask the person (a confirm-gated write from a
 * client with the elicitation capability), may write what the person accepted, or is answered
 * without writing (a declined answer, a tampered, expired or used requestState).
 */
export function personStep(s: PersonServices, plan: PersonPlan): PersonStep | Promise<PersonStep> {
  const person = plan.personConfirm;
  // Every call but a confirmed write from a client that shows questions: answered without a promise.
  if (!plan.tool.write || plan.args.confirm !== true || !person?.elicitation) return NO_STEP;
  if (person.accepted !== undefined) return { kind: 'write', previewDigest: person.accepted };
  if (person.requestState === undefined && person.inputResponses === undefined) return { kind: 'ask' };
  return claimedStep(s, plan, person);
}

const NO_STEP: PersonStep = Object.freeze({ kind: 'none' });

/** A retry that carries the person's answer: its requestState is checked and claimed once, across replicas. */
async function claimedStep(s: PersonServices, plan: PersonPlan, person: PersonConfirmRequest): Promise<PersonStep> {
  const now = s.now();
  const verdict = judgeRetry(s.vault, bindingOf(plan), plan.args, person.requestState, person.inputResponses, now);
  if (verdict.kind === 'refuse') return answer(s, verdict.code, { action: plan.tool.name, seconds: ttlMs(s) / 1000 });
  // Single use, across replicas: the first retry claims the nonce; a replay finds it claimed.
  const claim = await s.writes.claimWrite(usedStateKey(verdict.nonce), now, now - ttlMs(s));
  if (!claim.claimed) return answer(s, 'confirm_state_used', {});
  return { kind: 'write', previewDigest: verdict.previewDigest };
}

/**
 * After the handler answered its preview on an 'ask' step: on 2025 revisions the person is asked
 * on the call's event stream (`askPerson`), on 2026-07-28 the call answers `input_required`. A
 * result without a preview (the handler refused before previewing) passes through.
 */
export async function askPerson(
  s: PersonServices,
  plan: PersonPlan,
  result: unknown,
): Promise<
  | Answer
  | { readonly kind: 'input_required'; readonly result: Answer['result'] }
  | { readonly kind: 'write'; readonly previewDigest: string }
  | { readonly kind: 'pass' }
> {
  const preview = previewOf(result);
  if (!preview) return { kind: 'pass' };
  const ask = plan.personConfirm?.askPerson;
  if (ask) {
    if (!(await askToConfirm(ask, preview, textsOf(s), plan.signal)))
      return answer(s, 'confirm_declined', { action: plan.tool.name });
    return { kind: 'write', previewDigest: previewDigest(preview) };
  }
  const state = sealRequestState(s.vault, bindingOf(plan), plan.args, preview, s.now() + ttlMs(s));
  return { kind: 'input_required', result: { content: [], ...inputRequired(preview, textsOf(s), state) } };
}
