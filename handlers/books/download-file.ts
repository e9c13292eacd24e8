import type { BooksHandler } from '#generated/books/contract.ts';
import { UpstreamError } from '#runtime/handler-api/upstream-types.ts';
import { dinero, orgPath, segment } from './client.ts';

/** `GET /v1/{o}/files/{fileGuid}`: the bytes as base64, read at most to the 6 MB cap (aborted past it). */
export const downloadFile: BooksHandler<'download_file'> = async (args, ctx) => {
  try {
    const response = await dinero(ctx, {
      path: orgPath(args.organizationId, `/files/${segment(args.fileGuid)}`),
      accept: 'bytes',
      maxBytes: ctx.limits.maxFileBytes,
    });
    if (!Buffer.isBuffer(response.body)) throw new Error('Dinero answered a file download without bytes');
    return { fileGuid: args.fileGuid, base64: response.body.toString('base64') };
  } catch (error) {
    if (error instanceof UpstreamError && error.kind === 'too_large')
      return ctx.fail('file_too_large', { file_guid: args.fileGuid });
    throw error;
  }
};
