import { useQuery } from '@tanstack/react-query';
import { type ReactNode, useId, useMemo } from 'react';
import { Link } from 'react-router-dom';

import { ErrorMessage } from '@/components/error-message';
import { Loading } from '@/components/loading';
import type { ConnectionDetail as Detail, TimeSequenceSender } from '@/api/types';
import {
  formatBytes,
  formatClock,
  formatCount,
  formatDuration,
  formatExactBytes,
  formatMs,
  formatRate,
} from '@/lib/format';
import { packetsPath } from '@/lib/anchors';
import { isRecord } from '@/lib/narrow';

import { connectionQueryOptions, timeSequenceQueryOptions } from '../api/connections-api';
import { retransmissionCount } from '../lib/stevens-data';
import { HANDSHAKE_COLOUR, STEVENS_COLOURS } from '../lib/stevens-options';
import { StevensGraph } from './stevens-graph';

type Row = Record<string, unknown>;

function num(row: Row | undefined, key: string): number | undefined {
  const value = row?.[key];
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

function text(row: Row | undefined, key: string): string | undefined {
  const value = row?.[key];
  return typeof value === 'string' && value !== '' ? value : undefined;
}

function bool(row: Row | undefined, key: string): boolean | undefined {
  const value = row?.[key];
  return typeof value === 'boolean' ? value : undefined;
}

const dash = '—';
const opt = <T,>(value: T | undefined, format: (v: T) => string) => (value === undefined ? dash : format(value));
const seconds = (v: number) => formatMs(v * 1000);
const yesNo = (v: boolean) => (v ? 'yes' : 'no');

/** One line per fact, the same label for both directions. */
const DIRECTION_ROWS: { label: string; cell: (d: Row | undefined, handshakeRetries: number) => string }[] = [
  { label: 'Packets', cell: (d) => opt(num(d, 'packets'), formatCount) },
  { label: 'Payload', cell: (d) => opt(num(d, 'payload_bytes'), formatBytes) },
  { label: 'Throughput', cell: (d) => opt(num(d, 'throughput'), formatRate) },
  {
    label: 'Retransmissions (RTO / fast / SYN or SYN-ACK retries)',
    cell: (d, retries) =>
      `${formatCount((num(d, 'retransmissions') ?? 0) + retries)} (${opt(num(d, 'rto_retransmissions'), formatCount)} / ${opt(num(d, 'fast_retransmissions'), formatCount)} / ${formatCount(retries)})`,
  },
  { label: 'Retransmitted', cell: (d) => opt(num(d, 'retransmitted_bytes'), formatBytes) },
  { label: 'Silence before RTOs', cell: (d) => opt(num(d, 'rto_wait'), formatDuration) },
  {
    label: 'Tail loss probes (wait)',
    cell: (d) => `${opt(num(d, 'tail_loss_probes'), formatCount)} (${opt(num(d, 'tlp_wait'), formatDuration)})`,
  },
  {
    label: 'Not loss: re-sent acknowledged / D-SACKed / FIN / window probes',
    cell: (d) =>
      `${opt(num(d, 'resent_acknowledged'), formatCount)} / ${opt(num(d, 'dsacked_segments'), formatCount)} / ${opt(num(d, 'fin_retransmissions'), formatCount)} / ${opt(num(d, 'zero_window_probes'), formatCount)}`,
  },
  { label: 'Out of order', cell: (d) => opt(num(d, 'out_of_order'), formatCount) },
  { label: 'Keep-alives', cell: (d) => opt(num(d, 'keep_alives'), formatCount) },
  { label: 'Captured twice', cell: (d) => opt(num(d, 'capture_duplicates'), formatCount) },
  {
    label: 'Window advertised (min / median / max)',
    cell: (d) =>
      `${opt(num(d, 'window_min'), formatExactBytes)} / ${opt(num(d, 'window_median'), formatExactBytes)} / ${opt(num(d, 'window_max'), formatExactBytes)}${bool(d, 'window_scaled') === false ? ' (unscaled)' : ''}`,
  },
  {
    label: 'Zero windows',
    cell: (d) => `${opt(num(d, 'zero_windows'), formatCount)} (${opt(num(d, 'zero_window_seconds'), formatDuration)})`,
  },
  { label: 'Max bytes in flight', cell: (d) => opt(num(d, 'max_in_flight'), formatExactBytes) },
  {
    label: 'RTT seen at the capture point, data to its ACK (min / median / p99)',
    cell: (d) =>
      `${opt(num(d, 'rtt_min'), seconds)} / ${opt(num(d, 'rtt_median'), seconds)} / ${opt(num(d, 'rtt_p99'), seconds)} (${opt(num(d, 'rtt_samples'), (n) => plural(n, 'sample'))})`,
  },
  { label: 'MSS', cell: (d) => opt(num(d, 'mss'), (v) => `${formatCount(v)} B`) },
  { label: 'Window scale', cell: (d) => opt(num(d, 'window_scale'), String) },
  { label: 'SACK permitted', cell: (d) => opt(bool(d, 'sack_permitted'), yesNo) },
  { label: 'Timestamps', cell: (d) => opt(bool(d, 'timestamps'), yesNo) },
  { label: 'FIN at', cell: (d) => opt(num(d, 'fin_time'), formatClock) },
  { label: 'RST at', cell: (d) => opt(num(d, 'rst_time'), formatClock) },
  { label: 'Data after peer’s FIN', cell: (d) => opt(num(d, 'data_after_peer_fin_bytes'), formatBytes) },
];

function plural(n: number, word: string): string {
  return `${formatCount(n)} ${word}${n === 1 ? '' : 's'}`;
}

function Fact({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div>
      <dt>{label}</dt>
      <dd>{children}</dd>
    </div>
  );
}

/** The connection's SYN and SYN-ACK times (epoch seconds), as the analysis recorded them. */
function handshakeOf(connection: Detail): { syn: number[]; synAck: number[] } {
  const detail = isRecord(connection.detail) ? connection.detail : undefined;
  const times = (key: string) =>
    (Array.isArray(detail?.[key]) ? (detail[key] as unknown[]) : [])
      .filter(isRecord)
      .flatMap((event) => (typeof event.time === 'number' ? [event.time] : []));
  return { syn: times('syn_times'), synAck: times('synack_times') };
}

function KeyFacts({ connection }: { connection: Detail }) {
  const detail = isRecord(connection.detail) ? connection.detail : undefined;
  const c2s = isRecord(detail?.c2s) ? detail.c2s : undefined;
  const s2c = isRecord(detail?.s2c) ? detail.s2c : undefined;
  const synCount = num(detail, 'syn_count') ?? connection.syn_count;
  const synAckCount = num(detail, 'synack_count') ?? 0;
  const synTimes = Array.isArray(detail?.syn_times) ? detail.syn_times.filter(isRecord) : [];
  const firstSyn = num(synTimes[0], 'time');
  const gaps = synTimes.slice(1).map((s, i) => (num(s, 'time') ?? 0) - (num(synTimes[i], 'time') ?? 0));
  const finBy = text(detail, 'first_fin_by');
  const rstBy = text(detail, 'first_rst_by');
  return (
    <>
      <h3>Handshake and close</h3>
      <dl className="facts facts--wide" aria-label="Handshake and close">
        <Fact label="Client">
          <span className="mono">{connection.client}</span>
        </Fact>
        <Fact label="Server">
          <span className="mono">{connection.server}</span>
        </Fact>
        <Fact label="First packet">{formatClock(connection.first_time)}</Fact>
        <Fact label="Duration">{formatDuration(connection.duration)}</Fact>
        <Fact label="Handshake">
          {bool(detail, 'handshake_complete') === false ? 'not complete in the capture' : 'complete'}
          {`, ${formatCount(synCount)} SYN${synCount === 1 ? '' : 's'}`}
          {firstSyn !== undefined && ` from ${formatClock(firstSyn)}`}
          {gaps.length > 0 && ` (retries after ${gaps.map((g) => formatDuration(g)).join(', ')})`}
          {`, ${opt(num(detail, 'synack_count'), formatCount)} SYN-ACK`}
        </Fact>
        <Fact label="Initial RTT (handshake round trip)">{formatMs(connection.rtt_ms)}</Fact>
        <Fact label="ECN setup">
          SYN {opt(bool(detail, 'ecn_setup_syn'), yesNo)}, SYN-ACK {opt(bool(detail, 'ecn_setup_synack'), yesNo)}
        </Fact>
        <Fact label="Window scale">{text(detail, 'window_scale_note') ?? dash}</Fact>
        <Fact label="Close">
          {finBy ? `FIN first by the ${finBy} at ${opt(num(detail, 'first_fin_time'), formatClock)}` : 'no FIN'}
          {rstBy ? `; RST first by the ${rstBy} at ${opt(num(detail, 'first_rst_time'), formatClock)}` : '; no RST'}
        </Fact>
      </dl>
      <h3>Each direction</h3>
      <div className="table-scroll">
        <table className="table" aria-label="Each direction">
          <thead>
            <tr>
              <th scope="col"></th>
              <th scope="col" className="num">
                Client → server
              </th>
              <th scope="col" className="num">
                Server → client
              </th>
            </tr>
          </thead>
          <tbody>
            {DIRECTION_ROWS.map((row) => (
              <tr key={row.label}>
                <th scope="row">{row.label}</th>
                <td className="num">{row.cell(c2s, Math.max(synCount - 1, 0))}</td>
                <td className="num">{row.cell(s2c, Math.max(synAckCount - 1, 0))}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </>
  );
}

function Legend({ handshake }: { handshake: boolean }) {
  const items = [
    ['Data segments', STEVENS_COLOURS.segments],
    ['Retransmissions', STEVENS_COLOURS.retransmissions],
    ['ACK', STEVENS_COLOURS.acks],
    ['Advertised window edge', STEVENS_COLOURS.windowEdge],
    ...(handshake ? ([['SYN and SYN-ACK (dashed)', HANDSHAKE_COLOUR]] as const) : []),
  ] as const;
  return (
    <ul className="stevens-legend small" aria-label="Legend">
      {items.map(([label, colour]) => (
        <li key={label}>
          <span className="stevens-legend__swatch" style={{ background: colour }} aria-hidden="true" />
          {label}
        </li>
      ))}
    </ul>
  );
}

interface GraphSectionProps {
  incidentId: number;
  evidenceId: number;
  connId: number;
  sender: TimeSequenceSender;
  onSenderChange: (sender: TimeSequenceSender) => void;
  highlight?: readonly [number, number] | undefined;
  handshake?: { syn: readonly number[]; synAck: readonly number[] } | undefined;
}

function GraphSection(props: GraphSectionProps) {
  const { incidentId, evidenceId, connId, sender, onSenderChange, highlight, handshake } = props;
  const id = useId();
  const series = useQuery(timeSequenceQueryOptions(incidentId, evidenceId, connId, sender));
  const data = series.data;
  return (
    <section className="section" aria-labelledby={`${id}-title`}>
      <div className="stevens__head">
        <h3 id={`${id}-title`}>Time-sequence graph</h3>
        <fieldset className="segmented">
          <legend className="small muted">Data sent by</legend>
          {(['auto', 'client', 'server'] as const).map((value) => (
            <label key={value} className="segmented__option">
              <input
                type="radio"
                name={`${id}-sender`}
                value={value}
                checked={sender === value}
                onChange={() => {
                  onSenderChange(value);
                }}
              />
              {value === 'auto' ? 'the side that sent more' : `the ${value}`}
            </label>
          ))}
        </fieldset>
      </div>
      {series.isPending && <Loading label="Reading the capture for this connection…" />}
      {series.isError && <ErrorMessage>Could not load the graph: {series.error.message}</ErrorMessage>}
      {data && (
        <>
          <p className="small muted">
            Data from the {data.sender}: {formatCount(data.segments_total)} segments, {formatCount(data.acks_total)}{' '}
            ACKs, {plural(retransmissionCount(data), 'retransmission')} drawn
            {data.stride > 1 && ` (every ${formatCount(data.stride)}th point kept; every retransmission)`}
            {data.window_scale === null && '; window scale unknown, window edge unscaled'}. Drag to zoom, double-click
            to reset.
            {highlight && ' The shaded band is the time range the finding points at.'}
          </p>
          {data.error && <ErrorMessage>Reading stopped early: {data.error}</ErrorMessage>}
          <Legend handshake={(handshake?.syn.length ?? 0) + (handshake?.synAck.length ?? 0) > 0} />
          <StevensGraph series={data} highlight={highlight} handshake={handshake} />
        </>
      )}
    </section>
  );
}

interface ConnectionDetailProps {
  incidentId: number;
  evidenceId: number;
  connId: number;
  sender: TimeSequenceSender;
  onSenderChange: (sender: TimeSequenceSender) => void;
  highlight?: readonly [number, number] | undefined;
}

/** One connection: its handshake, close and both directions, then its time-sequence graph. */
export function ConnectionDetailView(props: ConnectionDetailProps) {
  const { incidentId, evidenceId, connId } = props;
  const id = useId();
  const connection = useQuery(connectionQueryOptions(incidentId, evidenceId, connId));
  // One object while the connection stays the same: the graph is drawn again (and its zoom lost) when it changes.
  const handshake = useMemo(() => (connection.data ? handshakeOf(connection.data) : undefined), [connection.data]);
  if (connection.isPending) return <Loading label="Loading the connection…" />;
  if (connection.isError) return <ErrorMessage>Could not load the connection: {connection.error.message}</ErrorMessage>;
  const c = connection.data;
  return (
    <article className="connection" aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>
        Connection {c.conn_id}: <span className="mono">{c.client}</span> → <span className="mono">{c.server}</span>
      </h2>
      <p>
        <Link to={packetsPath(incidentId, evidenceId, connId, { time: props.highlight })}>
          Show packets{props.highlight ? " in the finding's time range" : ''}
        </Link>
      </p>
      <KeyFacts connection={c} />
      <GraphSection {...props} handshake={handshake} />
    </article>
  );
}
