import { useQuery } from '@tanstack/react-query';
import {
  type ColumnDef,
  getCoreRowModel,
  getSortedRowModel,
  type SortingState,
  useReactTable,
} from '@tanstack/react-table';
import { useId, useState } from 'react';

import { Badge, type BadgeTone } from '@/components/badge';
import { ErrorMessage } from '@/components/error-message';
import { Loading } from '@/components/loading';
import { SortHeader } from '@/components/sort-header';
import type { PacketPage } from '@/api/types';
import { formatClock, formatCount } from '@/lib/format';

import { PACKETS_PAGE_SIZE, packetPageQueryOptions, packetsPcapUrl, type PacketQuery } from '../api/packets-api';

const TONES: Record<string, BadgeTone> = {
  retransmission: 'bad',
  'SYN retry': 'warn',
  'SYN-ACK retry': 'warn',
  'zero window': 'bad',
  duplicate: 'neutral',
  'keep-alive': 'info',
  'out of order': 'warn',
};

function utc(epochSeconds: number): string {
  return `${new Date(epochSeconds * 1000).toISOString().replace('T', ' ').replace('Z', '')} UTC`;
}

type Packet = PacketPage['packets'][number];

/** A packet and the time since the one before it in the capture (the page's order, whatever the table's sort). */
interface Row extends Packet {
  sincePrevious: number | null;
}

function withGaps(packets: readonly Packet[]): Row[] {
  return packets.map((p, i) => {
    const before = packets[i - 1];
    return { ...p, sincePrevious: before ? p.time - before.time : null };
  });
}

const dash = (value: string | null) => value ?? '—';

const COLUMNS: ColumnDef<Row>[] = [
  {
    id: 'number',
    header: 'No.',
    accessorKey: 'number',
    meta: { title: 'Packet number in the capture', numeric: true },
  },
  { id: 'time', header: 'Time', accessorKey: 'time', enableSorting: false },
  {
    id: 'sincePrevious',
    header: 'Since previous',
    accessorFn: (r) => r.sincePrevious ?? -1,
    meta: { title: 'Time since the previous packet of this page, ms', numeric: true },
  },
  { id: 'direction', header: 'From → to', accessorFn: (r) => (r.from_client ? 0 : 1), enableSorting: false },
  { id: 'flags', header: 'Flags', accessorFn: (r) => r.flags.join(' '), enableSorting: false },
  {
    id: 'seq',
    header: 'Seq',
    accessorKey: 'seq',
    enableSorting: false,
    meta: { title: 'Sequence number, relative to the sender’s first', numeric: true },
  },
  {
    id: 'ack',
    header: 'Ack',
    accessorFn: (r) => r.ack ?? -1,
    enableSorting: false,
    meta: { title: 'Acknowledgement number, relative to the peer’s first', numeric: true },
  },
  {
    id: 'length',
    header: 'Length',
    accessorKey: 'length',
    meta: { title: 'Payload length, bytes', numeric: true },
  },
  {
    id: 'window',
    header: 'Window',
    accessorFn: (r) => r.window ?? -1,
    meta: { title: 'Receive window as sent (not scaled)', numeric: true },
  },
  { id: 'annotations', header: 'What it is', accessorFn: (r) => r.annotations.join(' '), enableSorting: false },
];

/** The page's packets; sorted by a clicked header (again to reverse), in capture order to start with. */
function PacketTable({ rows, pageNumber }: { rows: Row[]; pageNumber: number }) {
  const [sorting, setSorting] = useState<SortingState>([{ id: 'number', desc: false }]);
  // The table keeps its state in an object React cannot see into and re-renders this component itself when it
  // changes; nothing of it is memoised here, so the compiler's warning does not apply.
  // eslint-disable-next-line react-hooks/incompatible-library
  const table = useReactTable({
    data: rows,
    columns: COLUMNS,
    getCoreRowModel: getCoreRowModel(),
    getSortedRowModel: getSortedRowModel(),
    getRowId: (row) => String(row.number),
    // No paging in the table (the API pages): left on, its page reset runs whenever new rows arrive.
    autoResetPageIndex: false,
    state: { sorting },
    onSortingChange: setSorting,
    enableMultiSort: false,
    enableSortingRemoval: false,
    sortDescFirst: false,
  });
  return (
    <div className="table-scroll">
      <table className="table table--compact packets__table">
        <caption className="visually-hidden">Packets {pageNumber}</caption>
        <thead>
          {table.getHeaderGroups().map((group) => (
            <tr key={group.id}>
              {group.headers.map((header) => (
                <SortHeader key={header.id} header={header} />
              ))}
            </tr>
          ))}
        </thead>
        <tbody>
          {table.getRowModel().rows.map(({ id, original: p }) => (
            <tr key={id} className={p.from_client ? 'packets__row--client' : 'packets__row--server'}>
              <td className="num mono">{p.number}</td>
              <td className="mono" title={utc(p.time)}>
                {formatClock(p.time)}
              </td>
              <td className="num mono">
                {dash(p.sincePrevious === null ? null : `${(p.sincePrevious * 1000).toFixed(3)} ms`)}
              </td>
              <td className="mono">{p.from_client ? 'client → server' : 'server → client'}</td>
              <td className="mono">{p.flags.join(' ')}</td>
              <td className="num mono">{p.seq}</td>
              <td className="num mono">{dash(p.ack === null ? null : String(p.ack))}</td>
              <td className="num mono">{formatCount(p.length)} B</td>
              <td className="num mono">{dash(p.window === null ? null : formatCount(p.window))}</td>
              <td>
                {p.annotations.map((a) => (
                  <Badge key={a} tone={TONES[a] ?? 'neutral'}>
                    {a}
                  </Badge>
                ))}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

interface PacketListProps {
  incidentId: number;
  evidenceId: number;
  connId: number;
  start?: number | undefined;
  timeRange?: readonly [number, number] | undefined;
}

/** One connection's packets as the capture has them, a page at a time, with what we made of each. */
export function PacketList({ incidentId, evidenceId, connId, start = 1, timeRange }: PacketListProps) {
  const id = useId();
  // The starts of the pages before this one, to go back (pages are read forward from the capture).
  const [history, setHistory] = useState<number[]>([]);
  const [from, setFrom] = useState(start);
  const query: PacketQuery = { start: from, timeFrom: timeRange?.[0], timeTo: timeRange?.[1] };
  const page = useQuery(packetPageQueryOptions(incidentId, evidenceId, connId, query));
  if (page.isPending) return <Loading label="Reading the packets from the capture…" />;
  if (page.isError) return <ErrorMessage>Could not read the packets: {page.error.message}</ErrorMessage>;
  const data = page.data;
  const packets = data.packets;
  const pageNumber = history.length + 1;
  return (
    <section className="section packets" aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>
        Packets of connection {connId}: <span className="mono">{data.client}</span> →{' '}
        <span className="mono">{data.server}</span>
      </h2>
      <p className="small muted">
        The connection spans packets {formatCount(data.first_packet)}–{formatCount(data.last_packet)} of the capture
        {timeRange && `; only packets from ${formatClock(timeRange[0])} to ${formatClock(timeRange[1])} are listed`}.
        Sequence and acknowledgement numbers are relative to each side&rsquo;s first; windows are as sent (not scaled).
      </p>
      <div className="packets__bar">
        <button
          type="button"
          disabled={history.length === 0 || page.isFetching}
          onClick={() => {
            setFrom(history[history.length - 1] ?? start);
            setHistory(history.slice(0, -1));
          }}
        >
          ← Previous {PACKETS_PAGE_SIZE}
        </button>
        <span className="small" aria-live="polite">
          Page {pageNumber}
          {packets.length > 0 &&
            !page.isPlaceholderData &&
            `: packets ${formatCount(packets[0]?.number ?? 0)}–${formatCount(packets[packets.length - 1]?.number ?? 0)}`}
          {page.isFetching && ' (reading…)'}
        </span>
        <button
          type="button"
          disabled={data.next_from === null || page.isFetching}
          onClick={() => {
            if (data.next_from === null) return;
            setHistory([...history, from]);
            setFrom(data.next_from);
          }}
        >
          Next {PACKETS_PAGE_SIZE} →
        </button>
        <a className="packets__download" href={packetsPcapUrl(incidentId, evidenceId, connId, query)} download>
          Download these packets (pcap)
        </a>
      </div>
      {data.error && <ErrorMessage>Reading stopped early: {data.error}</ErrorMessage>}
      {packets.length === 0 ? (
        <p className="muted">No packets of this connection in this range.</p>
      ) : (
        <PacketTable rows={withGaps(packets)} pageNumber={pageNumber} />
      )}
    </section>
  );
}
