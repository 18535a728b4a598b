import { useQuery } from '@tanstack/react-query';
import { useEffect, useId, useState } from 'react';
import { Link, useNavigate, useSearchParams } from 'react-router-dom';

import { ErrorMessage } from '@/components/error-message';
import { Loading } from '@/components/loading';
import type { Connection } from '@/api/types';
import { formatBytes, formatClock, formatCount, formatDuration, formatMs } from '@/lib/format';

import { CONNECTIONS_PAGE_SIZE, connectionListQueryOptions } from '../api/connections-api';
import {
  CONNECTION_FLAGS,
  FLAG_LABEL,
  readTableState,
  type SortColumn,
  type TableState,
  toListQuery,
  writeTableState,
} from '../lib/table-params';

interface Column {
  label: string;
  /** A longer name for screen readers and the tooltip. */
  title?: string;
  sort?: SortColumn;
  numeric?: boolean;
  cell: (row: Connection) => string;
}

const COLUMNS: Column[] = [
  { label: '#', title: 'Connection id', sort: 'conn_id', numeric: true, cell: (r) => String(r.conn_id) },
  { label: 'Client', cell: (r) => r.client },
  { label: 'Server', cell: (r) => r.server },
  { label: 'Start', title: 'First packet', sort: 'first_time', cell: (r) => formatClock(r.first_time) },
  { label: 'Duration', sort: 'duration', numeric: true, cell: (r) => formatDuration(r.duration) },
  {
    label: 'Pkts →',
    title: 'Packets client → server',
    sort: 'packets_c2s',
    numeric: true,
    cell: (r) => formatCount(r.packets_c2s),
  },
  {
    label: 'Pkts ←',
    title: 'Packets server → client',
    sort: 'packets_s2c',
    numeric: true,
    cell: (r) => formatCount(r.packets_s2c),
  },
  {
    label: 'Bytes →',
    title: 'Payload bytes client → server',
    sort: 'bytes_c2s',
    numeric: true,
    cell: (r) => formatBytes(r.bytes_c2s),
  },
  {
    label: 'Bytes ←',
    title: 'Payload bytes server → client',
    sort: 'bytes_s2c',
    numeric: true,
    cell: (r) => formatBytes(r.bytes_s2c),
  },
  {
    label: 'Retr →',
    title: 'Retransmissions by the client',
    sort: 'retrans_c2s',
    numeric: true,
    cell: (r) => formatCount(r.retrans_c2s),
  },
  {
    label: 'Retr ←',
    title: 'Retransmissions by the server',
    sort: 'retrans_s2c',
    numeric: true,
    cell: (r) => formatCount(r.retrans_s2c),
  },
  {
    label: 'Handshake retries',
    title: 'SYNs the client sent again / SYN-ACKs the server sent again',
    sort: 'syn_count',
    numeric: true,
    cell: (r) => `${formatCount(Math.max(r.syn_count - 1, 0))} / ${formatCount(Math.max(r.synack_count - 1, 0))}`,
  },
  {
    label: 'Zero win',
    title: 'Zero-window advertisements',
    sort: 'zero_windows',
    numeric: true,
    cell: (r) => formatCount(r.zero_windows),
  },
  { label: 'RST', title: 'A RST was seen', cell: (r) => (r.has_rst ? 'yes' : '') },
  { label: 'RTT', title: 'Initial RTT (handshake)', sort: 'rtt_ms', numeric: true, cell: (r) => formatMs(r.rtt_ms) },
];

/** How long typing may pause before the search is sent. */
export const SEARCH_DEBOUNCE_MS = 300;

function SortHeader({ column, state, onSort }: { column: Column; state: TableState; onSort: (c: SortColumn) => void }) {
  const { sort } = column;
  const active = sort !== undefined && state.sort === sort;
  const ariaSort = active ? (state.descending ? 'descending' : 'ascending') : sort ? 'none' : undefined;
  return (
    <th scope="col" className={column.numeric ? 'num' : undefined} aria-sort={ariaSort} title={column.title}>
      {sort ? (
        <button
          type="button"
          className="sort-button"
          aria-label={`Sort by ${column.title ?? column.label}`}
          onClick={() => {
            onSort(sort);
          }}
        >
          {column.label}
          <span aria-hidden="true">{active ? (state.descending ? ' ▼' : ' ▲') : ''}</span>
        </button>
      ) : (
        column.label
      )}
    </th>
  );
}

/**
 * A capture's connections, one row each: sort by any numeric column (click a header; again to
 * reverse), filter by flag, search an address or port, and page. The state is in the URL.
 */
export function ConnectionsTable({ incidentId, evidenceId }: { incidentId: number; evidenceId: number }) {
  const id = useId();
  const [params, setParams] = useSearchParams();
  const navigate = useNavigate();
  const state = readTableState(params);
  const [searchText, setSearchText] = useState(state.search);
  const query = useQuery(connectionListQueryOptions(incidentId, evidenceId, toListQuery(state)));

  const update = (change: Partial<TableState>) => {
    // Any change but paging starts again at the first page.
    setParams(writeTableState({ ...state, page: 1, ...change }), { replace: change.page === undefined });
  };

  // Send the search once typing pauses.
  useEffect(() => {
    if (searchText === state.search) return;
    const timer = setTimeout(() => {
      setParams(writeTableState({ ...state, search: searchText.trim(), page: 1 }), { replace: true });
    }, SEARCH_DEBOUNCE_MS);
    return () => {
      clearTimeout(timer);
    };
  }, [searchText, state, setParams]);

  const count = query.data?.count ?? 0;
  const pages = Math.max(1, Math.ceil(count / CONNECTIONS_PAGE_SIZE));
  const first = count === 0 ? 0 : (state.page - 1) * CONNECTIONS_PAGE_SIZE + 1;
  const last = Math.min(count, state.page * CONNECTIONS_PAGE_SIZE);
  const base = `/incidents/${incidentId}/evidence/${evidenceId}/connections`;

  return (
    <section className="section connections" aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>Connections</h2>
      <div className="connections__tools">
        <fieldset className="flag-filters">
          <legend className="small muted">Only connections with</legend>
          {CONNECTION_FLAGS.map((flag) => {
            const on = state.flags.includes(flag);
            return (
              <button
                key={flag}
                type="button"
                className={`button button--small toggle${on ? ' toggle--on' : ''}`}
                aria-pressed={on}
                onClick={() => {
                  update({ flags: on ? state.flags.filter((f) => f !== flag) : [...state.flags, flag] });
                }}
              >
                {FLAG_LABEL[flag]}
              </button>
            );
          })}
        </fieldset>
        <label className="connections__search">
          <span>Search address or port</span>
          <input
            type="search"
            value={searchText}
            placeholder="10.0.0.5 or :443"
            onChange={(event) => {
              setSearchText(event.target.value);
            }}
          />
        </label>
      </div>

      {query.isPending && <Loading label="Loading connections…" />}
      {query.isError && <ErrorMessage>Could not load the connections: {query.error.message}</ErrorMessage>}
      {query.data && (
        <>
          <p className="small muted" aria-live="polite">
            {count === 0
              ? 'No connection matches.'
              : `${formatCount(first)}–${formatCount(last)} of ${formatCount(count)} connection${count === 1 ? '' : 's'}`}
          </p>
          <div className="table-scroll">
            <table className="table connections__table" aria-label="Connections" aria-busy={query.isFetching}>
              <thead>
                <tr>
                  {COLUMNS.map((column) => (
                    <SortHeader
                      key={column.label}
                      column={column}
                      state={state}
                      onSort={(sort) => {
                        update({ sort, descending: state.sort === sort ? !state.descending : false });
                      }}
                    />
                  ))}
                </tr>
              </thead>
              <tbody>
                {query.data.results.map((row) => (
                  <tr
                    key={row.conn_id}
                    className="connections__row"
                    onClick={(event) => {
                      // The first cell's link is the keyboard way in; a click anywhere on the row does the same.
                      if (!(event.target instanceof HTMLAnchorElement)) void navigate(`${base}/${row.conn_id}`);
                    }}
                  >
                    {COLUMNS.map((column, i) => (
                      <td key={column.label} className={column.numeric ? 'num' : undefined}>
                        {i === 0 ? (
                          <Link
                            to={`${base}/${row.conn_id}`}
                            aria-label={`Connection ${row.conn_id}: ${row.client} → ${row.server}`}
                          >
                            {column.cell(row)}
                          </Link>
                        ) : (
                          column.cell(row)
                        )}
                      </td>
                    ))}
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          {pages > 1 && (
            <nav className="pager" aria-label="Pages">
              <button
                type="button"
                className="button button--small"
                disabled={state.page <= 1}
                onClick={() => {
                  update({ page: state.page - 1 });
                }}
              >
                Previous page
              </button>
              <span className="small">
                Page {state.page} of {pages}
              </span>
              <button
                type="button"
                className="button button--small"
                disabled={state.page >= pages}
                onClick={() => {
                  update({ page: state.page + 1 });
                }}
              >
                Next page
              </button>
            </nav>
          )}
        </>
      )}
    </section>
  );
}
