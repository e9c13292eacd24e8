// How two `pattern` keywords relate as languages: whether every string the new pattern accepts was
// accepted before (narrower), the reverse (wider), both (equal), or neither (other). refa builds
// finite automata from JS regular expressions (it is what eslint-plugin-regexp uses); a pattern it
// cannot turn into one (lookarounds, backreferences, anchors inside alternatives) is `unknown`.
import { DFA, JS, NFA } from 'refa';

export type Relation = 'equal' | 'narrower' | 'wider' | 'other' | 'unknown';

/** Keeps a pathological pattern from building a huge automaton: past it the relation is unknown. */
const MAX_NODES = 20_000;

/** A `$` at the end that is not escaped (an even number of backslashes before it). */
const ENDS_ANCHORED = /(?:^|[^\\])(?:\\\\)*\$$/;

/**
 * The strings a JSON Schema pattern accepts: it searches (is not anchored), so an unanchored end
 * accepts anything around the match. Only anchors at the very start and end are understood.
 */
function language(pattern: string): NFA | undefined {
  const start = pattern.startsWith('^');
  const end = ENDS_ANCHORED.test(pattern);
  const body = pattern.slice(start ? 1 : 0, end ? -1 : undefined);
  // `^a|b$` anchors each alternative, not the whole: not understood.
  if ((start || end) && body.includes('|')) return undefined;
  const source = `${start ? '' : '[^]*'}(?:${body})${end ? '' : '[^]*'}`;
  try {
    const { expression, maxCharacter } = JS.Parser.fromLiteral({ source, flags: 'u' }).parse();
    return NFA.fromRegex(expression, { maxCharacter }, { assertions: 'throw' }, new NFA.LimitedNodeFactory(MAX_NODES));
  } catch {
    return undefined;
  }
}

/** Whether every string `inner` accepts is accepted by `outer`: inner ∩ ¬outer is empty. */
function subset(inner: NFA, outer: NFA): boolean {
  const complement = DFA.fromFA(outer, new DFA.LimitedNodeFactory(MAX_NODES));
  complement.complement();
  return DFA.fromIntersection(inner, complement, new DFA.LimitedNodeFactory(MAX_NODES)).isEmpty;
}

/** How pattern `b` relates to pattern `a` (`narrower`: b accepts a subset of what a accepts). */
export function comparePatterns(a: string, b: string): Relation {
  if (a === b) return 'equal';
  const la = language(a);
  const lb = language(b);
  if (!la || !lb) return 'unknown';
  try {
    const bInA = subset(lb, la);
    const aInB = subset(la, lb);
    return bInA && aInB ? 'equal' : bInA ? 'narrower' : aInB ? 'wider' : 'other';
  } catch {
    return 'unknown';
  }
}
