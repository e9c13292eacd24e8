// A handler asks the client for input (MCP 2026-07-28 multi round-trip requests): it ends the round
// with `ctx.requireInput(requests, state)`, the runtime answers `resultType: "input_required"` with
// the requests and the handler's state sealed into `requestState`, and the client's retry reaches
// the handler again with `ctx.input` (the answers, the state as it was sealed). On the 2025
// revisions the gateway asks elicitation on the call's event stream itself. Code:
// runtime/pipeline/call-input.ts; docs/decisions/person-confirmed-writes.md, 'A handler asks the
// client for input'.

/** What a client can be asked (MCP 2026-07-28 input requests), by the capability it declares. */
export type InputMethod = 'elicitation/create' | 'sampling/createMessage' | 'roots/list';

/** One input request: the method the client runs for the person or the model, and its params. */
export interface InputRequest {
  readonly method: InputMethod;
  readonly params: Readonly<Record<string, unknown>>;
}

/** The kinds of input the calling client declared it can give (its capabilities on this request). */
export interface InputKinds {
  readonly elicitation: boolean;
  readonly sampling: boolean;
  readonly roots: boolean;
}

/** What the client sent with this round of a call. */
export interface CallInput {
  /**
   * The client's answers by the keys of the previous round's requests (each an object: an
   * ElicitResult, a CreateMessageResult, a ListRootsResult). Client data, checked only for shape:
   * read it as the answer to a question, never as proof of anything.
   */
  readonly responses: Readonly<Record<string, Readonly<Record<string, unknown>>>>;
  /**
   * The state the handler gave with its previous round, as it gave it: present only when the
   * client's requestState opened under this caller, endpoint, tool and arguments and had not expired.
   */
  readonly state: string | undefined;
  /**
   * What may be asked on this request. On the 2025 revisions (no retry channel) only elicitation,
   * and only from a client that declared it at initialize: the gateway asks on the call's stream.
   */
  readonly client: InputKinds;
}

/** 2025 revisions: a round the gateway asked on the call's stream, and what it was told. */
export interface StreamRound {
  readonly responses: CallInput['responses'];
  readonly state: string | undefined;
  /** Rounds asked so far in this call (at most the platform's inputRoundsPerCall). */
  readonly round: number;
}

/** A call without input: the first round, or a client that cannot be asked. */
export const NO_INPUT: CallInput = Object.freeze({
  responses: Object.freeze({}),
  state: undefined,
  client: Object.freeze({ elicitation: false, sampling: false, roots: false }),
});

const KIND_OF: Readonly<Record<InputMethod, keyof InputKinds>> = {
  'elicitation/create': 'elicitation',
  'sampling/createMessage': 'sampling',
  'roots/list': 'roots',
};

/** The capability a request needs. */
export function kindOf(method: InputMethod): keyof InputKinds {
  return KIND_OF[method];
}

/** Thrown by `ctx.requireInput`: the runtime answers the round with `input_required`. */
export class InputRequired extends Error {
  readonly requests: Readonly<Record<string, InputRequest>>;
  readonly state: string | undefined;
  constructor(requests: Readonly<Record<string, InputRequest>>, state?: string) {
    super('input required');
    this.name = 'InputRequired';
    this.requests = requests;
    this.state = state;
  }
}
