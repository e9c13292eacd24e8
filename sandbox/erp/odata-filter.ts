// The $filter of the ERP sandbox's OData options (../shared/upstreams/erp.md §2): a tokenizer, a
// parser to a typed expression (comparisons, and or not, contains startswith endswith substring
// tolower toupper; strings single-quoted with doubled quotes; bare numbers, dates, datetimes and
// GUIDs) with Business Central's refusals, and its evaluation over a row. Problems throw ODataError.
import type { ErpEntitySchema, ErpFieldType } from './data.ts';

export class ODataError extends Error {
  readonly status: number;
  readonly code: string;
  constructor(message: string, code = 'BadRequest', status = 400) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

// ---------------------------------------------------------------------------------------------
// $filter
// ---------------------------------------------------------------------------------------------

export type LiteralType = ErpFieldType | 'null';

type Operand =
  | { readonly k: 'field'; readonly name: string; readonly type: ErpFieldType }
  | { readonly k: 'lit'; readonly type: LiteralType; readonly value: unknown; readonly quoted: boolean }
  | { readonly k: 'call'; readonly name: 'tolower' | 'toupper' | 'substring'; readonly args: readonly Operand[] };

export type FilterExpr =
  | { readonly k: 'and' | 'or'; readonly l: FilterExpr; readonly r: FilterExpr }
  | { readonly k: 'not'; readonly e: FilterExpr }
  | { readonly k: 'cmp'; readonly op: CmpOp; readonly l: Operand; readonly r: Operand }
  | {
      readonly k: 'fn';
      readonly name: 'contains' | 'startswith' | 'endswith';
      readonly a: Operand;
      readonly b: Operand;
      readonly expect: boolean;
    };

type CmpOp = 'eq' | 'ne' | 'gt' | 'ge' | 'lt' | 'le';
const CMP_OPS: ReadonlySet<string> = new Set(['eq', 'ne', 'gt', 'ge', 'lt', 'le']);
const OP_KIND: Record<CmpOp, string> = {
  eq: 'Equal',
  ne: 'NotEqual',
  gt: 'GreaterThan',
  ge: 'GreaterThanOrEqual',
  lt: 'LessThan',
  le: 'LessThanOrEqual',
};
const EDM: Record<LiteralType, string> = {
  string: 'Edm.String',
  number: 'Edm.Decimal',
  boolean: 'Edm.Boolean',
  date: 'Edm.Date',
  datetime: 'Edm.DateTimeOffset',
  guid: 'Edm.Guid',
  null: 'null',
};

type Token =
  | { readonly t: 'punct'; readonly v: '(' | ')' | ',' }
  | { readonly t: 'ident'; readonly v: string }
  | { readonly t: 'lit'; readonly type: LiteralType; readonly value: unknown; readonly quoted: boolean };

const RE_DATETIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,7})?)?(?:Z|[+-]\d{2}:\d{2})(?![\w:.])/;
const RE_DATE = /^\d{4}-\d{2}-\d{2}(?![\w:.-])/;
const RE_GUID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}(?![\w-])/;
const RE_NUMBER = /^-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?(?![\w.])/;
const RE_IDENT = /^[A-Za-z_][A-Za-z0-9_]*(?:\/[A-Za-z_][A-Za-z0-9_]*)*/;

function syntax(text: string, at: number): ODataError {
  return new ODataError(`Syntax error at position ${at} in '${text}'.`);
}

function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    if (c === ' ' || c === '\t') {
      i++;
      continue;
    }
    if (c === '(' || c === ')' || c === ',') {
      tokens.push({ t: 'punct', v: c });
      i++;
      continue;
    }
    if (c === "'") {
      let value = '';
      let j = i + 1;
      for (;;) {
        if (j >= text.length)
          throw new ODataError(`There is an unterminated string literal at position ${i} in '${text}'.`);
        if (text[j] === "'") {
          if (text[j + 1] === "'") {
            value += "'";
            j += 2;
            continue;
          }
          break;
        }
        value += text[j];
        j++;
      }
      tokens.push({ t: 'lit', type: 'string', value, quoted: true });
      i = j + 1;
      continue;
    }
    const rest = text.slice(i);
    let m = RE_DATETIME.exec(rest);
    if (m !== null) {
      if (Number.isNaN(Date.parse(m[0]))) throw syntax(text, i);
      tokens.push({ t: 'lit', type: 'datetime', value: m[0], quoted: false });
      i += m[0].length;
      continue;
    }
    m = RE_GUID.exec(rest);
    if (m !== null) {
      tokens.push({ t: 'lit', type: 'guid', value: m[0].toLowerCase(), quoted: false });
      i += m[0].length;
      continue;
    }
    m = RE_DATE.exec(rest);
    if (m !== null) {
      if (Number.isNaN(Date.parse(`${m[0]}T00:00:00Z`))) throw syntax(text, i);
      tokens.push({ t: 'lit', type: 'date', value: m[0], quoted: false });
      i += m[0].length;
      continue;
    }
    m = RE_NUMBER.exec(rest);
    if (m !== null) {
      tokens.push({ t: 'lit', type: 'number', value: Number(m[0]), quoted: false });
      i += m[0].length;
      continue;
    }
    m = RE_IDENT.exec(rest);
    if (m !== null) {
      const word = m[0];
      if (word === 'true' || word === 'false')
        tokens.push({ t: 'lit', type: 'boolean', value: word === 'true', quoted: false });
      else if (word === 'null') tokens.push({ t: 'lit', type: 'null', value: null, quoted: false });
      else tokens.push({ t: 'ident', v: word });
      i += word.length;
      continue;
    }
    throw syntax(text, i);
  }
  return tokens;
}

export function unknownProperty(name: string, schema: ErpEntitySchema): ODataError {
  return new ODataError(`Could not find a property named '${name}' on type 'Microsoft.NAV.${schema.type}'.`);
}

/** Parses a $filter text against a schema (throws ODataError). */
export function parseFilter(text: string, schema: ErpEntitySchema): FilterExpr {
  const tokens = tokenize(text);
  let pos = 0;
  const peek = (): Token | undefined => tokens[pos];
  const isIdent = (tok: Token | undefined, word: string): boolean => tok?.t === 'ident' && tok.v === word;
  const isPunct = (tok: Token | undefined, v: string): boolean => tok?.t === 'punct' && tok.v === v;
  const expectPunct = (v: '(' | ')' | ','): void => {
    const tok = tokens[pos];
    if (tok?.t !== 'punct' || tok.v !== v)
      throw new ODataError(`Syntax error: '${v}' expected at token ${pos + 1} in '${text}'.`);
    pos++;
  };

  function operand(): Operand {
    const tok = tokens[pos];
    if (tok === undefined) throw new ODataError(`Syntax error: expression expected at the end of '${text}'.`);
    if (tok.t === 'lit') {
      pos++;
      return { k: 'lit', type: tok.type, value: tok.value, quoted: tok.quoted };
    }
    if (tok.t === 'ident') {
      pos++;
      const next = tokens[pos];
      if (next?.t === 'punct' && next.v === '(') {
        if (tok.v !== 'tolower' && tok.v !== 'toupper' && tok.v !== 'substring')
          throw new ODataError(`An unknown function with name '${tok.v}' was found.`);
        pos++;
        const args: Operand[] = [operand()];
        while (isPunct(peek(), ',')) {
          pos++;
          args.push(operand());
        }
        expectPunct(')');
        checkCall(tok.v, args);
        return { k: 'call', name: tok.v, args };
      }
      const type = schema.fields[tok.v];
      if (type === undefined) throw unknownProperty(tok.v, schema);
      return { k: 'field', name: tok.v, type };
    }
    throw syntax(text, pos);
  }

  function primary(): FilterExpr {
    const tok = peek();
    if (isPunct(tok, '(')) {
      pos++;
      const inner = orExpr();
      expectPunct(')');
      return inner;
    }
    if (isIdent(tok, 'not')) {
      pos++;
      return { k: 'not', e: primary() };
    }
    if (
      tok?.t === 'ident' &&
      (tok.v === 'contains' || tok.v === 'startswith' || tok.v === 'endswith') &&
      isPunct(tokens[pos + 1], '(')
    ) {
      pos += 2;
      const a = operand();
      expectPunct(',');
      const b = operand();
      expectPunct(')');
      if (operandType(a) !== 'string' || operandType(b) !== 'string') throw noSignature(tok.v);
      let expect = true;
      const after = peek();
      if (after?.t === 'ident' && (after.v === 'eq' || after.v === 'ne')) {
        const value = tokens[pos + 1];
        if (value?.t !== 'lit' || value.type !== 'boolean') throw syntax(text, pos);
        expect = (value.value === true) === (after.v === 'eq');
        pos += 2;
      }
      return { k: 'fn', name: tok.v, a, b, expect };
    }
    const l = operand();
    const opTok = peek();
    if (opTok?.t !== 'ident' || !CMP_OPS.has(opTok.v)) {
      if (l.k === 'lit' && l.type === 'boolean')
        return { k: 'cmp', op: 'eq', l, r: { k: 'lit', type: 'boolean', value: true, quoted: false } };
      if (l.k === 'field' && l.type === 'boolean')
        return { k: 'cmp', op: 'eq', l, r: { k: 'lit', type: 'boolean', value: true, quoted: false } };
      throw new ODataError(
        `Syntax error: a comparison operator (eq ne gt ge lt le) was expected at token ${pos + 1} in '${text}'.`,
      );
    }
    pos++;
    const op = opTok.v as CmpOp;
    const r = operand();
    checkComparable(l, r, op);
    return { k: 'cmp', op, l, r };
  }

  function andExpr(): FilterExpr {
    let left = primary();
    while (isIdent(peek(), 'and')) {
      pos++;
      left = { k: 'and', l: left, r: primary() };
    }
    return left;
  }

  function orExpr(): FilterExpr {
    let left = andExpr();
    while (isIdent(peek(), 'or')) {
      pos++;
      left = { k: 'or', l: left, r: andExpr() };
    }
    return left;
  }

  const expr = orExpr();
  if (pos < tokens.length) throw syntax(text, pos);
  checkOr(expr);
  return expr;
}

function noSignature(name: string): ODataError {
  return new ODataError(`No function signature for the function with name '${name}' matches the specified arguments.`);
}

/** The argument types and count of tolower/toupper (one string) and substring (a string and one or two numbers). */
function checkCall(name: string, args: readonly Operand[]): void {
  if (operandType(args[0]!) !== 'string') throw noSignature(name);
  const counted =
    name === 'substring'
      ? args.length >= 2 && args.length <= 3 && args.slice(1).every((a) => operandType(a) === 'number')
      : args.length === 1;
  if (!counted) throw noSignature(name);
}

function operandType(o: Operand): LiteralType {
  if (o.k === 'field') return o.type;
  if (o.k === 'lit') return o.type;
  return 'string';
}

function checkComparable(l: Operand, r: Operand, op: CmpOp): void {
  const lt = operandType(l);
  const rt = operandType(r);
  if (lt === 'null' || rt === 'null') {
    if (op === 'eq' || op === 'ne') return;
  } else if (lt === rt) return;
  throw new ODataError(
    'A binary operator with incompatible types was detected. Found operand types ' +
      `'${EDM[lt]}' and '${EDM[rt]}' for operator kind '${OP_KIND[op]}'.`,
  );
}

function fieldsOf(e: FilterExpr, out: Set<string>): Set<string> {
  const add = (o: Operand): void => {
    if (o.k === 'field') out.add(o.name);
    else if (o.k === 'call') for (const a of o.args) add(a);
  };
  if (e.k === 'and' || e.k === 'or') {
    fieldsOf(e.l, out);
    fieldsOf(e.r, out);
  } else if (e.k === 'not') fieldsOf(e.e, out);
  else if (e.k === 'cmp') {
    add(e.l);
    add(e.r);
  } else if (e.k === 'fn') {
    add(e.a);
    add(e.b);
  }
  return out;
}

/** Business Central refuses `or` between conditions on different fields. */
function checkOr(e: FilterExpr): void {
  if (e.k === 'or') {
    const fields = fieldsOf(e, new Set());
    if (fields.size > 1)
      throw new ODataError(
        `The 'or' operator is supported only between conditions on the same field; this ` +
          `filter combines ${[...fields].map((f) => `'${f}'`).join(', ')}.`,
      );
  }
  if (e.k === 'and' || e.k === 'or') {
    checkOr(e.l);
    checkOr(e.r);
  } else if (e.k === 'not') checkOr(e.e);
}

function value(o: Operand, row: Readonly<Record<string, unknown>>): unknown {
  if (o.k === 'lit') return o.value;
  if (o.k === 'field') return row[o.name] ?? null;
  const s = value(o.args[0]!, row);
  if (typeof s !== 'string') return null;
  if (o.name === 'tolower') return s.toLowerCase();
  if (o.name === 'toupper') return s.toUpperCase();
  const start = value(o.args[1]!, row) as number;
  const length = o.args[2] === undefined ? undefined : (value(o.args[2], row) as number);
  return length === undefined ? s.slice(start) : s.slice(start, start + length);
}

export function compareValues(a: unknown, b: unknown, type: LiteralType): number {
  if (type === 'datetime') return Date.parse(a as string) - Date.parse(b as string);
  if (type === 'guid') {
    const x = String(a).toLowerCase();
    const y = String(b).toLowerCase();
    return x < y ? -1 : x > y ? 1 : 0;
  }
  if (type === 'number') return (a as number) - (b as number);
  if (type === 'boolean') return Number(a) - Number(b);
  const x = String(a);
  const y = String(b);
  return x < y ? -1 : x > y ? 1 : 0;
}

export function matches(e: FilterExpr, row: Readonly<Record<string, unknown>>): boolean {
  switch (e.k) {
    case 'and':
      return matches(e.l, row) && matches(e.r, row);
    case 'or':
      return matches(e.l, row) || matches(e.r, row);
    case 'not':
      return !matches(e.e, row);
    case 'fn': {
      const a = value(e.a, row);
      const b = value(e.b, row);
      if (typeof a !== 'string' || typeof b !== 'string') return false;
      const hit = e.name === 'contains' ? a.includes(b) : e.name === 'startswith' ? a.startsWith(b) : a.endsWith(b);
      return hit === e.expect;
    }
    case 'cmp': {
      const a = value(e.l, row);
      const b = value(e.r, row);
      if (a === null || b === null) {
        if (e.op === 'eq') return a === b;
        if (e.op === 'ne') return a !== b;
        return false;
      }
      const type = operandType(e.l) === 'null' ? operandType(e.r) : operandType(e.l);
      const c = compareValues(a, b, type);
      switch (e.op) {
        case 'eq':
          return c === 0;
        case 'ne':
          return c !== 0;
        case 'gt':
          return c > 0;
        case 'ge':
          return c >= 0;
        case 'lt':
          return c < 0;
        case 'le':
          return c <= 0;
      }
    }
  }
}
