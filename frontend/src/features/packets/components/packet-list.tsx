import { useQuery } from '@tanstack/react-query';
import { useId, useState } from 'react';

import { Badge, type BadgeTone } from '@/components/badge';
import { ErrorMessage } from '@/components/error-message';
import { Loading } from '@/components/loading';
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
        <div className="table-scroll">
          <table className="table table--compact packets__table">
            <caption className="visually-hidden">Packets {pageNumber}</caption>
            <thead>
              <tr>
                <th scope="col" className="num">
                  No.
                </th>
                <th scope="col">Time</th>
                <th scope="col" className="num">
                  Since previous
                </th>
                <th scope="col">From → to</th>
                <th scope="col">Flags</th>
                <th scope="col" className="num">
                  Seq
                </th>
                <th scope="col" className="num">
                  Ack
                </th>
                <th scope="col" className="num">
                  Length
                </th>
                <th scope="col" className="num">
                  Window
                </th>
                <th scope="col">What it is</th>
              </tr>
            </thead>
            <tbody>
              {packets.map((p, i) => {
                const before = i > 0 ? packets[i - 1] : undefined;
                return (
                  <tr key={p.number} className={p.from_client ? 'packets__row--client' : 'packets__row--server'}>
                    <td className="num mono">{p.number}</td>
                    <td className="mono" title={utc(p.time)}>
                      {formatClock(p.time)}
                    </td>
                    <td className="num mono">{before ? `${((p.time - before.time) * 1000).toFixed(3)} ms` : '—'}</td>
                    <td className="mono">{p.from_client ? 'client → server' : 'server → client'}</td>
                    <td className="mono">{p.flags.join(' ')}</td>
                    <td className="num mono">{p.seq}</td>
                    <td className="num mono">{p.ack ?? '—'}</td>
                    <td className="num mono">{formatCount(p.length)} B</td>
                    <td className="num mono">{p.window === null ? '—' : formatCount(p.window)}</td>
                    <td>
                      {p.annotations.map((a) => (
                        <Badge key={a} tone={TONES[a] ?? 'neutral'}>
                          {a}
                        </Badge>
                      ))}
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
