import type { BooksHandler } from '#generated/books/contract.ts';
import { countedList } from './client.ts';

/** `GET /v1/countries` (no organisation); `search` filters the names here. */
export const listCountries: BooksHandler<'list_countries'> = async (args, ctx) => {
  const { rows } = await countedList(ctx, { path: '/v1/countries' }, 'the countries');
  const wanted = args.search?.trim().toLowerCase();
  // `search` is matched on the names only (every property whose name mentions "name").
  const countries = wanted
    ? rows.filter((row) =>
        Object.entries(row).some(
          ([key, value]) => /name/i.test(key) && typeof value === 'string' && value.toLowerCase().includes(wanted),
        ),
      )
    : rows;
  return { count: countries.length, countries };
};
