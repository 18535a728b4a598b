import { isRecord } from '@/lib/narrow';

import { isRowList } from '../lib/data-format';
import { type ConnectionTarget, DataFacts, RowsTable } from './data-table';
import { KnownChangesTable, WindowModelTable } from './kernel-tables';

/** The key numbers per known finding kind, in reading order; `rows` (when present) follows as a table. */
const KIND_KEYS: Record<string, readonly string[]> = {
  'tcp.syn_retransmit': [
    'connections',
    'retransmissions',
    'stack',
    'max_delay',
    'median_delay',
    'total_delay',
    'unanswered',
  ],
  'tcp.ecn_syn_blackhole': [
    'ecn_syns_unanswered',
    'fallback_connections',
    'never_answered_connections',
    'ecn_answered_connections',
    'plain_answered_connections',
    'connection_ids',
  ],
  'tcp.synack_retransmit': ['connections', 'retransmissions', 'median_first_gap', 'completed_after_retry'],
  'tcp.rto_retransmit': ['rto_retransmissions', 'fast_retransmissions', 'wait_seconds', 'by_sender'],
  'tcp.zero_window': ['advertisements', 'seconds', 'connections', 'by_receiver'],
  'tcp.receive_window_limited': ['window', 'rtt', 'cap', 'throughput', 'receiver', 'window_scaled', 'transfers'],
  'tcp.app_timeout_close': [
    'closer',
    'age',
    'spread',
    'connections',
    'peer_bytes_after_fin',
    'peer_unacked_at_fin',
    'connection_ids',
  ],
  'tcp.rst_after_fin': ['connections', 'by_closer', 'bytes_after_fin', 'connection_ids'],
  'tcp.retransmissions': [],
  'app.rcvbuf_pinned': ['so_rcvbuf', 'sk_rcvbuf'],
  'app.timeout': ['syscall', 'timeout_ms', 'count', 'fds'],
  'app.socket_options': ['fd', 'peer', 'local', 'family', 'options', 'connect_result'],
  'app.kafka_settings': [],
  'sockets.bbr_candidates': ['intervals', 'candidates', 'params'],
  'capture.summary': ['packets', 'bytes', 'duration', 'tcp_connections', 'truncated_packets', 'format', 'link_types'],
};

/** Row columns for kinds whose rows carry more than a reader needs. */
const ROW_COLUMNS: Record<string, readonly string[]> = {
  'app.rcvbuf_pinned': ['kernel', 'window', 'formula'],
};

/** Per-sender statistics such as tcp.retransmissions' `by_sender: {client: {...}, server: {...}}`. */
function perRoleRows(value: unknown): Record<string, unknown>[] | null {
  if (!isRecord(value)) return null;
  const rows = Object.entries(value).flatMap(([role, stats]) => (isRecord(stats) ? [{ sender: role, ...stats }] : []));
  return rows.length > 0 ? rows : null;
}

/** Every scalar (or small map) key, for kinds the UI does not know yet. */
function genericKeys(data: Record<string, unknown>): string[] {
  return Object.keys(data).filter((key) => !isRowList(data[key]));
}

/** The numbers behind a finding: a compact table per known kind, key/value pairs for the rest. */
export function FindingData({ kind, data, target }: { kind: string; data: unknown; target: ConnectionTarget }) {
  if (!isRecord(data) || Object.keys(data).length === 0) return null;
  if (kind === 'kernel.known_change_in_range') return <KnownChangesTable data={data} />;
  if (kind === 'kernel.receive_window_model') return <WindowModelTable data={data} />;
  const keys = KIND_KEYS[kind] ?? genericKeys(data);
  const tables = Object.entries(data).filter((entry): entry is [string, Record<string, unknown>[]] =>
    isRowList(entry[1]),
  );
  const bySender = kind === 'tcp.retransmissions' ? perRoleRows(data.by_sender) : null;
  return (
    <div className="finding__data">
      <DataFacts data={data} keys={keys} target={target} />
      {bySender && <RowsTable rows={bySender} target={target} label="By sender" />}
      {tables.map(([key, rows]) => (
        <RowsTable
          key={key}
          rows={rows}
          target={target}
          label={key === 'rows' ? 'Per connection' : key}
          columns={ROW_COLUMNS[kind]}
        />
      ))}
    </div>
  );
}
