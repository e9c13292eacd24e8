// A handler asks the client for input (docs/decisions/person-confirmed-writes.md, 'A handler asks
// the client for input'): MCP 2026-07-28 multi round-trip requests for any tool. The handler ends a
// round with `ctx.requireInput(requests, state)` (runtime/handler-api/input-requests.ts); this
// module answers it with `input_required` and a requestState sealed by the vault (AES-256-GCM, bound
// to account, user, instance and tool, carrying the digest of the arguments, an expiry and the
// handler's state), and opens the retry's requestState before the handler runs again. A
// requestState that does not open, names other arguments or expired, and inputResponses that are
// not an object of objects, are refused as invalid params (JSON-RPC -32602), before the handler
// runs and unmetered. The person-confirmed write (person-confirm.ts) keeps its own state.
// On the 2025 revisions (no retry channel) a client that declared form elicitation at initialize is
// asked on the call's event stream by the gateway itself (`askPerson`), and the handler runs again
// in the same call with the answers, at most inputRoundsPerCall rounds.
import type { CallInput, InputKinds, InputRequired, StreamRound } from '../handler-api/input-requests.ts';
import { kindOf, NO_INPUT } from '../handler-api/input-requests.ts';
import type { PlatformProtocolErrorParams } from '#generated/platform/descriptor.ts';
import type { GatewayContext } from '../gateway-context.ts';
import type { Reservation } from '../metering/usage.ts';
import type { Vault } from '../secrets/vault.ts';
import type { CallToolResult } from './call-types.ts';
import { argumentsDigest } from './write-guard.ts';

type RefusalCode = keyof PlatformProtocolErrorParams &
  ('input_state_invalid' | 'input_responses_invalid' | 'missing_client_capability');

/**
 * A call refused at the protocol level (2026-07-28, HTTP 400): a retry whose requestState or
 * inputResponses must not reach the handler (JSON-RPC -32602), or a handler's input request for a
 * kind the client did not declare (-32021 with `data.requiredCapabilities`). The MCP layer answers
 * it with the code's text.
 */
export class InputRefused extends Error {
  readonly code: RefusalCode;
  /** The missing capabilities as a ClientCapabilities object (`{ sampling: {} }`), for -32021. */
  readonly requiredCapabilities: Readonly<Record<string, object>> | undefined;
  constructor(code: RefusalCode, requiredCapabilities?: Readonly<Record<string, object>>) {
    super(code);
    this.name = 'InputRefused';
    this.code = code;
    this.requiredCapabilities = requiredCapabilities;
  }
}

/** What the 2026 request carried (the capabilities, the retry channel as sent), or the 2025 stream. */
export interface ClientInputRequest {
  readonly client?: InputKinds | undefined;
  readonly inputResponses?: unknown;
  readonly requestState?: unknown;
  /** 2025: asks on the call's stream (a client that declared form elicitation at initialize). */
  readonly askPerson?: ((question: never, signal: AbortSignal) => Promise<unknown>) | undefined;
  readonly askedOnStream?: StreamRound | undefined;
}

/** What a 2025 client with form elicitation can be asked: elicitation only, on the call's stream. */
const ON_STREAM: InputKinds = Object.freeze({ elicitation: true, sampling: false, roots: false });
/** The answer recorded for a question the client failed to answer (an error, a malformed result). */
const CANCELLED = Object.freeze({ action: 'cancel' });

/** What sealing and opening need: the vault, the clock (epoch ms) and how long a state lives. */
export interface InputServices {
  readonly vault: Vault;
  readonly now: () => number;
  readonly stateSeconds: number;
  /** The most rounds the gateway asks on a 2025 call's stream. */
  readonly roundsPerCall: number;
  /** Gives back the fair-use reservation of a call refused before its handler ran. */
  readonly release: (reservation: Reservation) => Promise<void>;
}

/** The gateway's: made once. */
export function inputServices(gateway: GatewayContext): InputServices {
  return {
    vault: gateway.vault,
    now: () => gateway.now().getTime(),
    stateSeconds: gateway.platform.limits.inputStateSeconds,
    roundsPerCall: gateway.platform.limits.inputRoundsPerCall,
    release: (reservation) => gateway.meter.release(reservation),
  };
}

/** The call as far as its input is concerned. */
interface InputPlan {
  readonly identity: { readonly account: { readonly id: string }; readonly user: { readonly id: string } };
  readonly endpoint: { readonly instanceId: string };
  readonly tool: { readonly name: string };
  readonly args: Readonly<Record<string, unknown>>;
  readonly personConfirm?: ClientInputRequest | undefined;
  readonly reservation: Reservation | undefined;
  readonly signal: AbortSignal;
  /** The call's secrets (redact.ts): a question sent on the 2025 stream may quote what an upstream echoed. */
  readonly redactor?: { value(value: unknown): unknown };
}

interface StateClaims {
  readonly v: 1;
  /** Arguments digest. */
  readonly a: string;
  /** Expiry, epoch ms. */
  readonly e: number;
  /** The handler's state. */
  readonly s?: string;
}

/** The requestState binding (AEAD additional data): never valid for another caller, endpoint or tool. */
function bindingOf(plan: InputPlan): string {
  return [
    'handler-input',
    plan.identity.account.id,
    plan.identity.user.id,
    plan.endpoint.instanceId,
    plan.tool.name,
  ].join('\u0000');
}

/** The longest requestState opened (a sealed state is far shorter; longer is refused unopened). */
const MAX_STATE_CHARS = 16_384;

function responsesOf(raw: unknown): CallInput['responses'] {
  if (raw === undefined) return NO_INPUT.responses;
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) throw new InputRefused('input_responses_invalid');
  for (const value of Object.values(raw))
    if (!value || typeof value !== 'object' || Array.isArray(value)) throw new InputRefused('input_responses_invalid');
  return raw as CallInput['responses'];
}

/**
 * The input of this round: the client's answers and, when a requestState came, the handler's state
 * sealed in it. Throws InputRefused for a retry that must not reach the handler (its fair-use
 * reservation given back: it is not metered).
 */
export function openInput(s: InputServices, plan: InputPlan): CallInput | Promise<CallInput> {
  try {
    // Read synchronously: a promise only for a refused retry (no await on the hot path).
    return readInput(s, plan);
  } catch (error) {
    return refusedInput(s, plan, error);
  }
}

async function refusedInput(s: InputServices, plan: InputPlan, error: unknown): Promise<never> {
  if (plan.reservation) await s.release(plan.reservation);
  throw error;
}

function readInput(s: InputServices, plan: InputPlan): CallInput {
  const request = plan.personConfirm;
  if (request?.askPerson) {
    const asked = request.askedOnStream;
    return asked
      ? { responses: asked.responses, state: asked.state, client: ON_STREAM }
      : { ...NO_INPUT, client: ON_STREAM };
  }
  if (!request?.client) return NO_INPUT;
  const responses = responsesOf(request.inputResponses);
  const raw = request.requestState;
  if (raw === undefined) return { responses, state: undefined, client: request.client };
  const plain =
    typeof raw === 'string' && raw.length <= MAX_STATE_CHARS ? s.vault.openToken(raw, bindingOf(plan)) : undefined;
  let claims: StateClaims | undefined;
  try {
    claims = plain === undefined ? undefined : (JSON.parse(plain) as StateClaims);
  } catch {
    claims = undefined;
  }
  if (claims?.v !== 1 || claims.a !== argumentsDigest(plan.args) || !(s.now() < claims.e))
    throw new InputRefused('input_state_invalid');
  return { responses, state: claims.s, client: request.client };
}

/**
 * Refuses a round that asks for a kind the client did not declare: on 2026-07-28 the request's
 * MissingRequiredClientCapabilityError (InputRefused, -32021); on the 2025 revisions, which declare
 * nothing per request, a plain error (the generic text, logged).
 */
function checkKinds(request: ClientInputRequest | undefined, asked: InputRequired): void {
  const kinds = request?.askPerson ? ON_STREAM : request?.client;
  const missing = [...new Set(Object.values(asked.requests).map((r) => kindOf(r.method)))].filter((k) => !kinds?.[k]);
  if (missing.length === 0) return;
  if (request?.client && !request.askPerson)
    throw new InputRefused('missing_client_capability', Object.fromEntries(missing.map((k) => [k, {}])));
  throw new Error(`input requests for ${missing.join(', ')}: the client cannot answer them`);
}

/**
 * The answer to a handler's round: on 2026-07-28 `input_required`; on a 2025 call with a stream, the
 * gateway asks each request on it (elicitation only) and `rerun`s the handler with the answers.
 * Past inputRoundsPerCall rounds it throws (the generic text, logged); a kind the client did not
 * declare is refused (checkKinds).
 */
export async function inputRound<P extends InputPlan>(
  s: InputServices,
  plan: P,
  asked: InputRequired,
  rerun: (plan: P) => Promise<CallToolResult>,
): Promise<CallToolResult> {
  const request = plan.personConfirm;
  checkKinds(request, asked);
  const ask = request?.askPerson;
  if (!ask) return inputRequiredResult(s, plan, asked);
  const round = (request.askedOnStream?.round ?? 0) + 1;
  if (round > s.roundsPerCall) throw new Error(`more than ${s.roundsPerCall} rounds of input requests in one call`);
  const responses: Record<string, Readonly<Record<string, unknown>>> = {};
  for (const [key, question] of Object.entries(asked.requests)) {
    const params = plan.redactor ? plan.redactor.value(question.params) : question.params;
    const answer = await ask(params as never, plan.signal).catch((error: unknown) => {
      if (plan.signal.aborted) throw error;
      return CANCELLED;
    });
    const usable = answer && typeof answer === 'object' && !Array.isArray(answer);
    responses[key] = usable ? (answer as Readonly<Record<string, unknown>>) : CANCELLED;
  }
  return rerun({ ...plan, personConfirm: { ...request, askedOnStream: { responses, state: asked.state, round } } });
}

/** The 2026 round's answer: the handler's requests and its state sealed into a requestState. */
export function inputRequiredResult(s: InputServices, plan: InputPlan, asked: InputRequired): CallToolResult {
  const claims: StateClaims = {
    v: 1,
    a: argumentsDigest(plan.args),
    e: s.now() + s.stateSeconds * 1000,
    ...(asked.state === undefined ? {} : { s: asked.state }),
  };
  const requestState = s.vault.sealToken(JSON.stringify(claims), bindingOf(plan));
  // A state too long to be opened again would fail the retry: the handler's defect, refused now.
  if (requestState.length > MAX_STATE_CHARS) throw new Error(`requestState of ${requestState.length} characters`);
  return { content: [], resultType: 'input_required', inputRequests: { ...asked.requests }, requestState };
}
