// The state-of-account query (books.md §2 #19–20): `from` and `to` are independent optional dates;
// the upstream takes date-times, so a day is sent as its whole UTC day.
export function stateOfAccountQuery(args: {
  readonly from?: string;
  readonly to?: string;
  readonly hideClosed: boolean;
}): Record<string, string | boolean | undefined> {
  return {
    from: args.from === undefined ? undefined : `${args.from}T00:00:00Z`,
    to: args.to === undefined ? undefined : `${args.to}T23:59:59Z`,
    hideClosed: args.hideClosed,
  };
}
