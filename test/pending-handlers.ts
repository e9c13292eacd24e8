// Tools whose handler is still a generated stub, by connector. test/handler-stubs.test.ts fails
// when this list goes stale in either direction: remove a tool here when its handler lands.
export const pendingHandlers: Readonly<Record<string, readonly string[]>> = {
  books: [],
  cases: [],
  erp: [],
  invoicing: [],
  ledger: [],
  register: [],
  search: [],
};
