// The invoicing sandbox's error answers: e-conomic's error body (message, developerHint, logId,
// httpStatusCode, logTime), the annotated validation tree mirroring the request body (§2
// "Errors"), and the filter/sort parse errors.
import { randomUUID } from 'node:crypto';
import type { Json, Row } from './data.ts';
import type { QueryError } from './query.ts';

export class HttpError extends Error {
  readonly status: number;
  readonly body: Row;
  readonly headers: Record<string, string>;
  constructor(status: number, body: Row, headers: Record<string, string> = {}) {
    super(String(body.message));
    this.status = status;
    this.body = body;
    this.headers = headers;
  }
}

export const errorBody = (status: number, message: string, developerHint: string, extra: Row = {}): Row => ({
  message,
  developerHint,
  logId: randomUUID(),
  httpStatusCode: status,
  logTime: new Date().toISOString().slice(0, 19),
  ...extra,
});
export const fail = (
  status: number,
  message: string,
  hint: string,
  extra: Row = {},
  headers: Record<string, string> = {},
): HttpError => new HttpError(status, errorBody(status, message, hint, extra), headers);
export const notFound = (): HttpError => fail(404, 'Not found.', 'The requested resource does not exist.');

/** Annotated validation errors mirroring the request body (§2 "Errors"). */
export class Validation {
  readonly tree: Row = {};
  count = 0;
  add(path: readonly (string | number)[], errorCode: string, message: string, value?: Json): void {
    this.count++;
    let node: Row = this.tree;
    for (let k = 0; k < path.length; k++) {
      const key = path[k]!;
      if (typeof key === 'number') continue;
      const next = path[k + 1];
      if (typeof next === 'number') {
        if (node[key] === undefined) node[key] = [];
        const list = node[key] as Row[];
        let item = list.find((x) => x.arrayIndex === next);
        if (!item) {
          item = { arrayIndex: next };
          list.push(item);
        }
        node = item;
        continue;
      }
      if (node[key] === undefined) node[key] = {};
      node = node[key] as Row;
    }
    if (node.errors === undefined) node.errors = [];
    (node.errors as Json[]).push({
      errorCode,
      message,
      ...(value === undefined ? {} : { value }),
      developerHint: message,
    });
  }
  throwIfAny(): void {
    if (this.count > 0)
      throw fail(400, 'Validation error.', 'The request body did not validate; see errors for each property.', {
        errors: this.tree,
      });
  }
}

export function queryError(e: QueryError): HttpError {
  return e.kind === 'filter'
    ? fail(400, 'Could not parse query string filter.', 'See the filtering section of the documentation.', {
        errors: [e.message],
        allowedFilteringFields: [...e.allowed],
      })
    : fail(400, 'Could not parse query string sort.', 'See the sorting section of the documentation.', {
        errors: [e.message],
        allowedSortingFields: [...e.allowed],
      });
}
