import type { BooksHandler } from '#generated/books/contract.ts';
import { arrayBody, camelRow, dineroJson, orgPath, slicePage, utcTimestamp } from './client.ts';

/** `GET /v1/{o}/entries/changes` for a window of at most 31 days; the page is cut here. */
export const listEntryChanges: BooksHandler<'list_entry_changes'> = async (args, ctx) => {
  // The window is checked before any request (the upstream would answer 400, books.md §3 #16).
  if (Date.parse(args.changesTo) - Date.parse(args.changesFrom) > ctx.limits.maxWindowDays * 86_400_000)
    return ctx.refuseArguments('change_window_too_long');
  const body = await dineroJson(ctx, {
    path: orgPath(args.organizationId, '/entries/changes'),
    query: {
      changesFrom: utcTimestamp(args.changesFrom),
      changesTo: utcTimestamp(args.changesTo),
      includePrimo: args.includePrimo,
    },
  });
  return slicePage(arrayBody(body, 'the entry changes').map(camelRow), args.page, args.pageSize);
};
