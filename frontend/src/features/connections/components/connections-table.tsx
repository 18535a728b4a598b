import { useQueries, useQuery } from '@tanstack/react-query';
import { type ColumnDef, getCoreRowModel, type SortingState, useReactTable } from '@tanstack/react-table';
import { observeElementRect, useVirtualizer } from '@tanstack/react-virtual';
import { useEffect, useId, useRef, useState } from 'react';
import { Link, useNavigate, useSearchParams } from 'react-router-dom';

import { ErrorMessage } from '@/components/error-message';
import { Loading } from '@/components/loading';
import { SortHeader } from '@/components/sort-header';
import type { Connection } from '@/api/types';
import { formatBytes, formatClock, formatCount, formatDuration, formatMs } from '@/lib/format';
import { oneOf } from '@/lib/narrow';

import { CONNECTIONS_PAGE_SIZE, connectionListQueryOptions } from '../api/connections-api';
import {
  CONNECTION_FLAGS,
  FLAG_LABEL,
  readTableState,
  SORTABLE,
  type TableState,
  toListQuery,
  writeTableState,
} from '../lib/table-params';

/** A connection and its place in the sorted, filtered list (0-based): rows arrive a page at a time, in any order. */
interface Slot {
  index: number;
  conn: Connection;
}

/** The columns: a column's id is the API's name for it, which is also what it sorts by when it can be sorted. */
const SPEC: { id: string; header: string; title?: string; numeric?: boolean; text: (r: Connection) => string }[] = [
  { id: 'conn_id', header: '#', title: 'Connection id', numeric: true, text: (r) => String(r.conn_id) },
  { id: 'client', header: 'Client', text: (r) => r.client },
  { id: 'server', header: 'Server', text: (r) => r.server },
  { id: 'first_time', header: 'Start', title: 'First packet', text: (r) => formatClock(r.first_time) },
  { id: 'duration', header: 'Duration', numeric: true, text: (r) => formatDuration(r.duration) },
  {
    id: 'packets_c2s',
    header: 'Pkts →',
    title: 'Packets client → server',
    numeric: true,
    text: (r) => formatCount(r.packets_c2s),
  },
  {
    id: 'packets_s2c',
    header: 'Pkts ←',
    title: 'Packets server → client',
    numeric: true,
    text: (r) => formatCount(r.packets_s2c),
  },
  {
    id: 'bytes_c2s',
    header: 'Bytes →',
    title: 'Payload bytes client → server',
    numeric: true,
    text: (r) => formatBytes(r.bytes_c2s),
  },
  {
    id: 'bytes_s2c',
    header: 'Bytes ←',
    title: 'Payload bytes server → client',
    numeric: true,
    text: (r) => formatBytes(r.bytes_s2c),
  },
  {
    id: 'retrans_c2s',
    header: 'Retr →',
    title: 'Retransmissions by the client',
    numeric: true,
    text: (r) => formatCount(r.retrans_c2s),
  },
  {
    id: 'retrans_s2c',
    header: 'Retr ←',
    title: 'Retransmissions by the server',
    numeric: true,
    text: (r) => formatCount(r.retrans_s2c),
  },
  {
    id: 'syn_count',
    header: 'Handshake retries',
    title: 'SYNs the client sent again / SYN-ACKs the server sent again',
    numeric: true,
    text: (r) => `${formatCount(Math.max(r.syn_count - 1, 0))} / ${formatCount(Math.max(r.synack_count - 1, 0))}`,
  },
  {
    id: 'zero_windows',
    header: 'Zero win',
    title: 'Zero-window advertisements',
    numeric: true,
    text: (r) => formatCount(r.zero_windows),
  },
  { id: 'has_rst', header: 'RST', title: 'A RST was seen', text: (r) => (r.has_rst ? 'yes' : '') },
  { id: 'rtt_ms', header: 'RTT', title: 'Initial RTT (handshake)', numeric: true, text: (r) => formatMs(r.rtt_ms) },
];

const COLUMNS: ColumnDef<Slot>[] = SPEC.map(({ id, header, title, numeric, text }) => ({
  id,
  header,
  accessorFn: (slot: Slot) => text(slot.conn),
  enableSorting: oneOf(SORTABLE, id) !== undefined,
  meta: { ...(title !== undefined && { title }), ...(numeric !== undefined && { numeric }) },
}));

/** A row's height in pixels before it is measured (one line of text with the table's padding). */
const ROW_HEIGHT = 33;
/** Rows drawn beyond the visible ones on either side, so a fast scroll or a Tab to the next row finds one. */
const OVERSCAN = 10;
/** Where the scroll box has no size yet (not laid out), a screenful is drawn rather than no row at all. */
const UNMEASURED_HEIGHT = 600;

/** How long typing may pause before the search is sent. */
export const SEARCH_DEBOUNCE_MS = 300;

/**
 * A capture's connections, one row each, every row of the list in one scroll box (100,000 and more: only the
 * rows in view are drawn, and the API's pages of rows are fetched as the scroll reaches them). Sort by any
 * numeric column (click a header; again to reverse), filter by flag, search an address or port. The state is in
 * the URL.
 */
export function ConnectionsTable({ incidentId, evidenceId }: { incidentId: number; evidenceId: number }) {
  const id = useId();
  const [params, setParams] = useSearchParams();
  const navigate = useNavigate();
  const state = readTableState(params);
  const [searchText, setSearchText] = useState(state.search);
  const scrollRef = useRef<HTMLDivElement>(null);
  // The first page also says how many rows there are.
  const query = useQuery(connectionListQueryOptions(incidentId, evidenceId, toListQuery(state)));
  const count = query.data?.count ?? 0;

  const toTop = () => {
    if (scrollRef.current) scrollRef.current.scrollTop = 0;
  };
  const update = (change: Partial<TableState>) => {
    toTop();
    setParams(writeTableState({ ...state, ...change }), { replace: true });
  };

  // Send the search once typing pauses.
  useEffect(() => {
    if (searchText === state.search) return;
    const timer = setTimeout(() => {
      if (scrollRef.current) scrollRef.current.scrollTop = 0;
      setParams(writeTableState({ ...state, search: searchText.trim() }), { replace: true });
    }, SEARCH_DEBOUNCE_MS);
    return () => {
      clearTimeout(timer);
    };
  }, [searchText, state, setParams]);

  // The virtualizer and the table keep their state in objects React cannot see into and re-render this component
  // themselves when it changes; nothing of theirs is memoised here, so the compiler's warning does not apply.
  // eslint-disable-next-line react-hooks/incompatible-library
  const virtualizer = useVirtualizer({
    count,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => ROW_HEIGHT,
    overscan: OVERSCAN,
    observeElementRect: (instance, onRect) =>
      observeElementRect(instance, (rect) => {
        onRect(rect.height > 0 ? rect : { ...rect, height: UNMEASURED_HEIGHT });
      }),
    measureElement: (element) => element.getBoundingClientRect().height || ROW_HEIGHT,
  });
  const items = virtualizer.getVirtualItems();

  // The pages under the rows drawn, beyond the first (which is always asked for).
  const pageNumbers = [...new Set(items.map((item) => Math.floor(item.index / CONNECTIONS_PAGE_SIZE)))].filter(
    (p) => p > 0,
  );
  const pages = useQueries({
    queries: pageNumbers.map((p) =>
      connectionListQueryOptions(incidentId, evidenceId, toListQuery(state, p * CONNECTIONS_PAGE_SIZE)),
    ),
  });
  const slots: Slot[] = [];
  for (const [i, page] of [query, ...pages].entries()) {
    const first = i === 0 ? 0 : (pageNumbers[i - 1] ?? 0) * CONNECTIONS_PAGE_SIZE;
    if (page.data && !page.isPlaceholderData) {
      page.data.results.forEach((conn, k) => slots.push({ index: first + k, conn }));
    } else if (i === 0 && page.data) {
      // A new sort or filter is loading: the old first page stays on screen until it arrives.
      page.data.results.forEach((conn, k) => slots.push({ index: k, conn }));
    }
  }

  const sorting: SortingState = [{ id: state.sort, desc: state.descending }];
  const table = useReactTable({
    data: slots,
    columns: COLUMNS,
    getCoreRowModel: getCoreRowModel(),
    getRowId: (slot) => String(slot.index),
    // The API sorts (across every row, not the ones loaded) and pages; the table only says how. (Left on, the
    // table's own paging would reset itself whenever rows arrive, and that re-renders without end.)
    manualSorting: true,
    manualPagination: true,
    autoResetPageIndex: false,
    enableMultiSort: false,
    enableSortingRemoval: false,
    sortDescFirst: false,
    state: { sorting },
    onSortingChange: (updater) => {
      const [next] = typeof updater === 'function' ? updater(sorting) : updater;
      const sort = next && oneOf(SORTABLE, next.id);
      if (next && sort) update({ sort, descending: next.desc });
    },
  });
  const rows = new Map(table.getRowModel().rows.map((row) => [row.original.index, row]));
  const columnCount = COLUMNS.length;
  const padTop = items[0]?.start ?? 0;
  const padBottom = virtualizer.getTotalSize() - (items.at(-1)?.end ?? 0);
  const inView = virtualizer.range;
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
          <p className="small muted">
            <span aria-live="polite">
              {count === 0 ? 'No connection matches.' : `${formatCount(count)} connection${count === 1 ? '' : 's'}`}
            </span>
            {/* Where the box scrolls, which rows it shows. */}
            {inView &&
              inView.endIndex - inView.startIndex + 1 < count &&
              ` · rows ${formatCount(inView.startIndex + 1)}–${formatCount(inView.endIndex + 1)} in view`}
          </p>
          <div className="table-scroll connections__scroll" ref={scrollRef}>
            <table
              className="table connections__table"
              aria-label="Connections"
              aria-busy={query.isFetching || pages.some((p) => p.isFetching)}
              aria-rowcount={count + 1}
            >
              <thead>
                {table.getHeaderGroups().map((group) => (
                  <tr key={group.id} aria-rowindex={1}>
                    {group.headers.map((header) => (
                      <SortHeader key={header.id} header={header} />
                    ))}
                  </tr>
                ))}
              </thead>
              <tbody>
                {padTop > 0 && (
                  <tr aria-hidden="true" className="virtual-pad">
                    <td colSpan={columnCount} style={{ height: padTop }} />
                  </tr>
                )}
                {items.map((item) => {
                  const row = rows.get(item.index);
                  if (!row) {
                    return (
                      <tr
                        key={`loading-${String(item.index)}`}
                        data-index={item.index}
                        ref={virtualizer.measureElement}
                        aria-rowindex={item.index + 2}
                        className="connections__row--loading"
                      >
                        <td colSpan={columnCount} className="muted">
                          Loading row {formatCount(item.index + 1)}…
                        </td>
                      </tr>
                    );
                  }
                  const conn = row.original.conn;
                  return (
                    <tr
                      key={row.id}
                      data-index={item.index}
                      ref={virtualizer.measureElement}
                      aria-rowindex={item.index + 2}
                      className="connections__row"
                      onClick={(event) => {
                        // The first cell's link is the keyboard way in; a click anywhere on the row does the same.
                        if (!(event.target instanceof HTMLAnchorElement)) void navigate(`${base}/${conn.conn_id}`);
                      }}
                    >
                      {row.getVisibleCells().map((cell, i) => (
                        <td key={cell.id} className={cell.column.columnDef.meta?.numeric ? 'num' : undefined}>
                          {i === 0 ? (
                            <Link
                              to={`${base}/${conn.conn_id}`}
                              aria-label={`Connection ${conn.conn_id}: ${conn.client} → ${conn.server}`}
                            >
                              {String(cell.getValue())}
                            </Link>
                          ) : (
                            String(cell.getValue())
                          )}
                        </td>
                      ))}
                    </tr>
                  );
                })}
                {padBottom > 0 && (
                  <tr aria-hidden="true" className="virtual-pad">
                    <td colSpan={columnCount} style={{ height: padBottom }} />
                  </tr>
                )}
              </tbody>
            </table>
          </div>
        </>
      )}
    </section>
  );
}
