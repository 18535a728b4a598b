import type { ConnectionFlag, ConnectionListQuery } from '@/api/types';
import { oneOf } from '@/lib/narrow';

import { CONNECTIONS_PAGE_SIZE } from '../api/connections-api';

export const CONNECTION_FLAGS = [
  'retransmissions',
  'rst',
  'zero_window',
  'syn_retries',
] as const satisfies readonly ConnectionFlag[];

export const FLAG_LABEL: Record<(typeof CONNECTION_FLAGS)[number], string> = {
  retransmissions: 'Retransmissions',
  rst: 'RST',
  zero_window: 'Zero window',
  syn_retries: 'SYN or SYN-ACK retries',
};

/** The columns the API can sort by. */
export const SORTABLE = [
  'conn_id',
  'first_time',
  'duration',
  'packets_c2s',
  'packets_s2c',
  'bytes_c2s',
  'bytes_s2c',
  'retrans_c2s',
  'retrans_s2c',
  'syn_count',
  'zero_windows',
  'rtt_ms',
] as const;
export type SortColumn = (typeof SORTABLE)[number];

export interface TableState {
  sort: SortColumn;
  descending: boolean;
  flags: (typeof CONNECTION_FLAGS)[number][];
  search: string;
}

/**
 * The table's state lives in the URL (`?sort=-bytes_s2c&flag=rst&q=10.0`), so a view can be shared and Back works.
 * (There are no pages to keep: the table scrolls through every row.)
 */
export function readTableState(params: URLSearchParams): TableState {
  const rawSort = params.get('sort') ?? 'conn_id';
  const descending = rawSort.startsWith('-');
  const sort = oneOf(SORTABLE, rawSort.replace(/^-/, '')) ?? 'conn_id';
  const flags = CONNECTION_FLAGS.filter((flag) => params.getAll('flag').includes(flag));
  return { sort, descending, flags, search: params.get('q') ?? '' };
}

export function writeTableState(state: TableState): URLSearchParams {
  const params = new URLSearchParams();
  if (state.sort !== 'conn_id' || state.descending) params.set('sort', `${state.descending ? '-' : ''}${state.sort}`);
  for (const flag of state.flags) params.append('flag', flag);
  if (state.search) params.set('q', state.search);
  return params;
}

/** What the API is asked for: the page of rows that starts at `offset` (a multiple of the page size). */
export function toListQuery(state: TableState, offset = 0): ConnectionListQuery {
  return {
    ordering: `${state.descending ? '-' : ''}${state.sort}`,
    ...(state.flags.length > 0 ? { flag: state.flags } : {}),
    ...(state.search ? { search: state.search } : {}),
    limit: CONNECTIONS_PAGE_SIZE,
    offset,
  };
}
