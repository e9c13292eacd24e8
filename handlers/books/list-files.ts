import type { BooksHandler } from '#generated/books/contract.ts';
import { arrayBody, camelRow, dineroJson, orgPath } from './client.ts';

/** `GET /v1/{o}/files`: a bare array; `hasMore` when the page came back full (books.md §3 #12). */
export const listFiles: BooksHandler<'list_files'> = async (args, ctx) => {
  // Upload dates go upstream as `yyyy/MM/dd`; the upstream's default page (1000) is never relied on.
  const slashed = (date: string | undefined) => date?.replace(/-/g, '/');
  const body = await dineroJson(ctx, {
    path: orgPath(args.organizationId, '/files'),
    query: {
      extensions: args.extensions,
      uploadedAfter: slashed(args.uploadedAfter),
      uploadedBefore: slashed(args.uploadedBefore),
      fileStatus: args.fileStatus,
      page: args.page,
      pageSize: args.pageSize,
    },
  });
  const files = arrayBody(body, 'the files').map(camelRow);
  return { count: files.length, hasMore: files.length >= args.pageSize, files };
};
