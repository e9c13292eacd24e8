// The write routes of the invoicing sandbox (POST /customers, PUT /customers/{n}, POST
// /invoices/drafts) and the validation of their bodies: nulls, required and documented
// properties, references by number or `self`, currencies, decimals, annotated 400s (§2, §3).
import type { Route } from '../http-kit.ts';
import {
  addDays,
  customerLinks,
  INVOICING_CURRENCIES,
  invoiceAmounts,
  type Json,
  lineTotal,
  paymentTermsRef,
  type Row,
  round2,
} from './data.ts';
import { decodeIdentifier } from './collections.ts';
import { notFound, Validation } from './errors.ts';
import type { InvoicingState } from './state.ts';
import { INVOICING_CUSTOMER_READ_ONLY, INVOICING_DOCUMENTED_PROPERTIES, INVOICING_ERROR_CODES } from './switches.ts';

const findNulls = (value: unknown, path: (string | number)[], v: Validation): void => {
  if (value === null)
    v.add(path, INVOICING_ERROR_CODES.nullValue, 'null is not a valid value; omit the property instead.', null);
  else if (Array.isArray(value)) {
    for (const [i, x] of value.entries()) findNulls(x, [...path, i], v);
  } else if (typeof value === 'object')
    for (const [k, x] of Object.entries(value as Row)) findNulls(x, [...path, k], v);
};

/** A reference given by number or `self`; the referenced number, or undefined after an error. */
export const reference = (
  body: Row,
  path: (string | number)[],
  field: string,
  key: string,
  rows: readonly Row[],
  v: Validation,
  required: boolean,
): Row | undefined => {
  let node: unknown = body;
  for (const p of path) node = node === undefined || node === null ? undefined : (node as Row)[p as string];
  const value = (node as Row | undefined)?.[field];
  if (value === undefined) {
    if (required) v.add([...path, field], INVOICING_ERROR_CODES.required, `Property ${field} is required.`);
    return undefined;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    v.add([...path, field], INVOICING_ERROR_CODES.invalid, `Property ${field} must be an object.`);
    return undefined;
  }
  const ref = value as Row;
  let id: string | undefined;
  if (ref[key] !== undefined) id = String(ref[key]);
  else if (typeof ref.self === 'string') id = decodeIdentifier(ref.self.split('/').pop() ?? '') ?? undefined;
  const row = id === undefined ? undefined : rows.find((r) => String(r[key]) === id);
  if (!row) {
    v.add(
      [...path, field],
      INVOICING_ERROR_CODES.unknownReference,
      `${field} not found.`,
      (ref[key] ?? ref.self ?? null) as Json,
    );
    return undefined;
  }
  return row;
};

const text = (body: Row, field: string, v: Validation, required: boolean, max = 255): string | undefined => {
  const value = body[field];
  if (value === undefined) {
    if (required) v.add([field], INVOICING_ERROR_CODES.required, `Property ${field} is required.`);
    return undefined;
  }
  if (typeof value !== 'string') {
    v.add([field], INVOICING_ERROR_CODES.invalid, `Property ${field} must be a string.`, value as Json);
    return undefined;
  }
  if (value.length > max)
    v.add([field], INVOICING_ERROR_CODES.tooLong, `Property ${field} may be at most ${max} characters.`, value);
  return value;
};

const currencyOf = (body: Row, v: Validation): string | undefined => {
  const c = text(body, 'currency', v, true, 3);
  if (c !== undefined && INVOICING_CURRENCIES[c] === undefined)
    v.add(['currency'], INVOICING_ERROR_CODES.unknownReference, `Currency '${c}' not found.`, c);
  return c;
};

const CUSTOMER_TEXT = [
  'address',
  'city',
  'zip',
  'country',
  'email',
  'telephoneAndFaxNumber',
  'mobilePhone',
  'corporateIdentificationNumber',
  'vatNumber',
  'ean',
  'website',
  'publicEntryNumber',
];

/** Properties outside the documented set: recorded, and 400 unless `unknownProperties: 'ignore'`. */
const undocumented = (
  s: InvoicingState,
  value: unknown,
  kind: keyof typeof INVOICING_DOCUMENTED_PROPERTIES,
  path: (string | number)[],
  v: Validation,
): void => {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return;
  for (const key of Object.keys(value)) {
    if (INVOICING_DOCUMENTED_PROPERTIES[kind].has(key)) continue;
    s.stats.undocumentedProperties.push(`${kind}.${key}`);
    if (s.switches.unknownProperties === 'reject')
      v.add(
        [...path, key],
        INVOICING_ERROR_CODES.unknownProperty,
        `Property ${key} is not part of the ${kind} schema.`,
      );
  }
};

const customerFrom = (s: InvoicingState, body: Row, customerNumber: number | undefined, v: Validation): Row => {
  undocumented(s, body, 'customer', [], v);
  if (s.switches.vatNumberPolicy === 'reject' && body.vatNumber !== undefined)
    v.add(
      ['vatNumber'],
      INVOICING_ERROR_CODES.invalid,
      'vatNumber is not available on this agreement; use corporateIdentificationNumber.',
      body.vatNumber as Json,
    );
  const name = text(body, 'name', v, true);
  const currency = currencyOf(body, v);
  const group = reference(body, [], 'customerGroup', 'customerGroupNumber', s.data.customerGroups, v, true);
  const terms = reference(body, [], 'paymentTerms', 'paymentTermsNumber', s.data.paymentTerms, v, true);
  const zone = reference(body, [], 'vatZone', 'vatZoneNumber', s.data.vatZones, v, true);
  const layout = reference(body, [], 'layout', 'layoutNumber', s.data.layouts, v, false);
  const out: Row = {};
  let number = customerNumber;
  if (body.customerNumber !== undefined) {
    const given = body.customerNumber;
    if (typeof given !== 'number' || !Number.isInteger(given) || given < 1 || given > 999_999_999)
      v.add(
        ['customerNumber'],
        INVOICING_ERROR_CODES.invalid,
        'customerNumber must be an integer from 1 to 999999999.',
        given as Json,
      );
    else if (customerNumber === undefined && s.data.customers.some((c) => c.customerNumber === given))
      v.add(
        ['customerNumber'],
        INVOICING_ERROR_CODES.duplicateNumber,
        `Customer number ${given} is already in use.`,
        given,
      );
    else if (customerNumber !== undefined && given !== customerNumber)
      v.add(['customerNumber'], INVOICING_ERROR_CODES.invalid, 'customerNumber does not match the path.', given);
    else number = given;
  }
  for (const f of CUSTOMER_TEXT) {
    const t = text(body, f, v, false);
    if (t !== undefined) out[f] = t;
  }
  for (const f of ['creditLimit']) {
    if (body[f] === undefined) continue;
    if (typeof body[f] !== 'number')
      v.add([f], INVOICING_ERROR_CODES.invalid, `Property ${f} must be a number.`, body[f] as Json);
    else out[f] = body[f] as number;
  }
  if (body.barred !== undefined && typeof body.barred !== 'boolean')
    v.add(['barred'], INVOICING_ERROR_CODES.invalid, 'Property barred must be a boolean.', body.barred as Json);
  for (const f of ['attention', 'salesPerson', 'customerContact'])
    if (body[f] !== undefined && typeof body[f] === 'object' && !Array.isArray(body[f])) out[f] = body[f] as Row;
  v.throwIfAny();
  const n = number ?? Math.max(0, ...s.data.customers.map((c) => c.customerNumber as number)) + 1;
  const previous = s.data.customers.find((c) => c.customerNumber === n);
  return {
    customerNumber: n,
    name: name!,
    currency: currency!,
    balance: (previous?.balance as number | undefined) ?? 0,
    dueAmount: (previous?.dueAmount as number | undefined) ?? 0,
    ...out,
    ...(body.barred === true ? { barred: true } : {}),
    lastUpdated: `${new Date().toISOString().slice(0, 19)}Z`,
    customerGroup: { customerGroupNumber: group!.customerGroupNumber as number, self: group!.self as string },
    paymentTerms: paymentTermsRef(terms!.paymentTermsNumber as number),
    vatZone: { vatZoneNumber: zone!.vatZoneNumber as number, self: zone!.self as string },
    ...(layout ? { layout: { layoutNumber: layout.layoutNumber as number, self: layout.self as string } } : {}),
    ...customerLinks(n),
  };
};

const decimalsOk = (x: number): boolean => Math.abs(Math.round(x * 100) - x * 100) < 1e-7;

/** One draft line: validated (errors under `lines[i]`), priced from its product when it names one. */
const draftLine = (s: InvoicingState, raw: Json, i: number, v: Validation): Row | undefined => {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    v.add(['lines', i, 'description'], INVOICING_ERROR_CODES.invalid, 'A line must be an object.');
    return undefined;
  }
  const line = raw as Row;
  let product: Row | undefined;
  if (line.product !== undefined) {
    const p = line.product as Row;
    if (typeof p !== 'object' || p === null || (p.productNumber === undefined && p.self === undefined))
      v.add(['lines', i, 'product'], INVOICING_ERROR_CODES.productWithoutId, 'A product needs productNumber or self.');
    else {
      const id =
        p.productNumber !== undefined
          ? String(p.productNumber)
          : decodeIdentifier(String(p.self).split('/').pop() ?? '');
      product = s.data.products.find((x) => x.productNumber === id);
      if (!product)
        v.add(
          ['lines', i, 'product'],
          INVOICING_ERROR_CODES.unknownReference,
          'Product not found.',
          (p.productNumber ?? p.self) as Json,
        );
    }
    if (line.quantity === undefined)
      v.add(
        ['lines', i, 'quantity'],
        INVOICING_ERROR_CODES.productWithoutQuantity,
        'quantity is required on a line with a product.',
      );
    if (s.switches.lineDescriptionRequired && line.description === undefined)
      v.add(
        ['lines', i, 'description'],
        INVOICING_ERROR_CODES.required,
        'description is required on a line with a product.',
      );
  }
  if (line.quantity !== undefined && typeof line.quantity !== 'number')
    v.add(['lines', i, 'quantity'], INVOICING_ERROR_CODES.invalid, 'quantity must be a number.', line.quantity as Json);
  if (line.unitNetPrice !== undefined && (typeof line.unitNetPrice !== 'number' || !decimalsOk(line.unitNetPrice)))
    v.add(
      ['lines', i, 'unitNetPrice'],
      INVOICING_ERROR_CODES.tooManyDecimals,
      'unitNetPrice may have at most 2 decimals.',
      line.unitNetPrice as Json,
    );
  const discount = line.discountPercentage ?? 0;
  if (typeof discount !== 'number')
    v.add(
      ['lines', i, 'discountPercentage'],
      INVOICING_ERROR_CODES.invalid,
      'discountPercentage must be a number.',
      discount,
    );
  let unit: Row | undefined;
  if (line.unit !== undefined) unit = reference(line, [], 'unit', 'unitNumber', s.data.units, v, false);
  if (line.unit !== undefined && !unit) {
    // reference() reported at ['unit']; move it under the line.
    const errs = (v.tree.unit as Row).errors as Json[];
    delete v.tree.unit;
    v.count--;
    v.add(
      ['lines', i, 'unit'],
      INVOICING_ERROR_CODES.unknownReference,
      'Unit not found.',
      ((errs[0] as Row).value ?? null) as Json,
    );
  }
  if (line.description !== undefined && typeof line.description !== 'string')
    v.add(
      ['lines', i, 'description'],
      INVOICING_ERROR_CODES.invalid,
      'description must be a string.',
      line.description as Json,
    );
  const quantity = typeof line.quantity === 'number' ? line.quantity : product ? 0 : 1;
  const unitNetPrice =
    typeof line.unitNetPrice === 'number' ? line.unitNetPrice : ((product?.salesPrice as number | undefined) ?? 0);
  return {
    lineNumber: i + 1,
    sortKey: i + 1,
    ...(typeof line.description === 'string' ? { description: line.description } : {}),
    ...(product ? { product: { productNumber: product.productNumber as string, self: product.self as string } } : {}),
    quantity,
    ...(unit ? { unit: { unitNumber: unit.unitNumber as number, name: unit.name as string } } : {}),
    unitNetPrice,
    discountPercentage: typeof discount === 'number' ? discount : 0,
    ...(product ? { unitCostPrice: product.costPrice as number } : {}),
    totalNetAmount: lineTotal(quantity, unitNetPrice, typeof discount === 'number' ? discount : 0),
  };
};

const draftFrom = (s: InvoicingState, body: Row, v: Validation): Row => {
  undocumented(s, body, 'draft', [], v);
  if (Array.isArray(body.lines))
    for (const [i, line] of body.lines.entries()) undocumented(s, line, 'line', ['lines', i], v);
  const currency = currencyOf(body, v);
  const customer = reference(body, [], 'customer', 'customerNumber', s.data.customers, v, true);
  const layout = reference(body, [], 'layout', 'layoutNumber', s.data.layouts, v, true);
  const terms = reference(body, [], 'paymentTerms', 'paymentTermsNumber', s.data.paymentTerms, v, true);
  const date = body.date;
  if (date === undefined) v.add(['date'], INVOICING_ERROR_CODES.required, 'Property date is required.');
  else if (typeof date !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(date))
    v.add(['date'], INVOICING_ERROR_CODES.invalid, 'date must be YYYY-MM-DD.', date as Json);
  const dueDate = body.dueDate;
  if (dueDate !== undefined && (typeof dueDate !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(dueDate)))
    v.add(['dueDate'], INVOICING_ERROR_CODES.invalid, 'dueDate must be YYYY-MM-DD.', dueDate as Json);
  if (terms?.paymentTermsType === 'dueDate' && dueDate === undefined)
    v.add(
      ['dueDate'],
      INVOICING_ERROR_CODES.required,
      'dueDate is required when the payment terms are of type dueDate.',
    );
  const recipient = body.recipient;
  let zone: Row | undefined;
  if (recipient === undefined) v.add(['recipient'], INVOICING_ERROR_CODES.required, 'Property recipient is required.');
  else if (typeof recipient !== 'object' || recipient === null || Array.isArray(recipient))
    v.add(['recipient'], INVOICING_ERROR_CODES.invalid, 'recipient must be an object.');
  else {
    const r = recipient as Row;
    if (r.name === undefined)
      v.add(['recipient', 'name'], INVOICING_ERROR_CODES.required, 'Property name is required.');
    else if (typeof r.name !== 'string')
      v.add(['recipient', 'name'], INVOICING_ERROR_CODES.invalid, 'name must be a string.', r.name as Json);
    zone = reference(body, ['recipient'], 'vatZone', 'vatZoneNumber', s.data.vatZones, v, true);
  }
  const lines: Row[] = [];
  if (body.lines !== undefined && !Array.isArray(body.lines))
    v.add(['lines'], INVOICING_ERROR_CODES.invalid, 'lines must be an array.');
  const rawLines = Array.isArray(body.lines) ? (body.lines as Json[]) : [];
  rawLines.forEach((raw, i) => {
    const line = draftLine(s, raw, i, v);
    if (line !== undefined) lines.push(line);
  });
  v.throwIfAny();
  const draftInvoiceNumber = Math.max(0, ...s.data.drafts.map((d) => d.draftInvoiceNumber as number)) + 1;
  const rate = INVOICING_CURRENCIES[currency!]!;
  const amounts = invoiceAmounts(lines, zone!.vatZoneNumber as number, rate);
  const cost = round2(
    lines.reduce((s, l) => s + ((l.unitCostPrice as number | undefined) ?? 0) * (l.quantity as number), 0),
  );
  const r = recipient as Row;
  const keep = (o: unknown): Row => (typeof o === 'object' && o !== null && !Array.isArray(o) ? (o as Row) : {});
  return {
    draftInvoiceNumber,
    date: date as string,
    currency: currency!,
    exchangeRate: rate,
    ...amounts,
    costPriceInBaseCurrency: round2((cost * rate) / 100),
    marginInBaseCurrency: round2(((amounts.netAmount as number) - cost) * (rate / 100)),
    marginPercentage: amounts.netAmount
      ? round2((100 * ((amounts.netAmount as number) - cost)) / (amounts.netAmount as number))
      : 0,
    dueDate:
      (dueDate as string | undefined) ?? addDays(date as string, (terms!.daysOfCredit as number | undefined) ?? 0),
    paymentTerms: paymentTermsRef(terms!.paymentTermsNumber as number),
    customer: { customerNumber: customer!.customerNumber as number, self: customer!.self as string },
    recipient: { ...keep(r), vatZone: { vatZoneNumber: zone!.vatZoneNumber as number, self: zone!.self as string } },
    ...(body.delivery !== undefined ? { delivery: keep(body.delivery) } : {}),
    notes: keep(body.notes),
    references: keep(body.references),
    layout: { layoutNumber: layout!.layoutNumber as number, self: layout!.self as string },
    soap: { currentInvoiceHandle: { id: 100 + draftInvoiceNumber } },
    templates: {
      bookingInstructions: `/invoices/drafts/${draftInvoiceNumber}/templates/booking-instructions`,
      self: `/invoices/drafts/${draftInvoiceNumber}/templates`,
    },
    lines,
    self: `/invoices/drafts/${draftInvoiceNumber}`,
  };
};

/** An accepted write: its status, the record, and the `Location` of a created one. */
export interface WriteResult {
  readonly status: number;
  readonly body: Row;
  readonly location?: string;
}

type WriteHandler = (s: InvoicingState, body: Row, v: Validation, params: string[]) => WriteResult;

const createCustomer: WriteHandler = (s, body, v) => {
  const c = customerFrom(s, body, undefined, v);
  s.data.customers.push(c);
  return { status: 201, body: c, location: `${s.publicUrl}${c.self as string}` };
};

const updateCustomer: WriteHandler = (s, body, v, [id]) => {
  const i = s.data.customers.findIndex((c) => String(c.customerNumber) === id);
  if (i < 0) throw notFound();
  if (s.switches.readOnlyOnPut === 'reject')
    for (const key of INVOICING_CUSTOMER_READ_ONLY)
      if (body[key] !== undefined)
        v.add([key], INVOICING_ERROR_CODES.readOnly, `Property ${key} is read-only.`, body[key] as Json);
  const c = customerFrom(s, body, s.data.customers[i]!.customerNumber as number, v);
  s.data.customers[i] = c;
  return { status: 200, body: c };
};

const createDraft: WriteHandler = (s, body, v) => {
  const d = draftFrom(s, body, v);
  s.data.drafts.push(d);
  return { status: 201, body: d, location: `${s.publicUrl}${d.self as string}` };
};

/**
 * The writes the docs describe; any other non-GET method or path is a 405 (DELETE and booking are logged as forbidden).
 */
export const WRITE_ROUTES: readonly Route<WriteHandler>[] = [
  { method: 'POST', path: '/customers', handle: createCustomer },
  { method: 'PUT', path: '/customers/:n', handle: updateCustomer },
  { method: 'POST', path: '/invoices/drafts', handle: createDraft },
];

/** Runs a write route on a parsed JSON object body: nulls refused first, then the route's own validation. */
export function write(s: InvoicingState, handle: WriteHandler, params: string[], body: Row): WriteResult {
  const v = new Validation();
  findNulls(body, [], v);
  v.throwIfAny();
  return handle(s, body, v, params);
}
