import {
  formatBitRate,
  formatBytes,
  formatCount,
  formatDuration,
  formatExactBytes,
  formatMs,
  formatRate,
} from '@/lib/format';
import { isRecord } from '@/lib/narrow';

/** Numbers that are windows or buffers: the exact value matters (65,536 vs 32,768). */
const EXACT_BYTES = new Set([
  'window',
  'window_max',
  'so_rcvbuf',
  'sk_rcvbuf',
  'rmem_max',
  'syn_window',
  'max_in_flight',
]);
/** Seconds, shown as a duration. */
const SECONDS = new Set([
  'seconds',
  'delay',
  'max_delay',
  'median_delay',
  'total_delay',
  'wait',
  'wait_seconds',
  'age',
  'spread',
  'median_first_gap',
  'transfer_s',
  'duration',
  'close_age_s',
]);
/** Bytes per second. */
const RATES = new Set(['cap', 'throughput']);
/** Shares of one (0.99 → 99 %). */
const SHARES = new Set(['rate', 'ratio', 'pinned_share', 'throughput_share_of_cap', 'share']);

const LABELS: Record<string, string> = {
  so_rcvbuf: 'SO_RCVBUF',
  sk_rcvbuf: 'Kernel buffer (sk_rcvbuf)',
  rtt: 'RTT',
  rtt_ms: 'RTT',
  cap: 'Cap (window / RTT)',
  rto: 'RTO retransmissions',
  timeout_ms: 'Timeout',
  tcp_adv_win_scale: 'tcp_adv_win_scale',
  tcp_rmem: 'tcp_rmem',
  rmem_max: 'rmem_max',
  fds: 'File descriptors',
  fd: 'File descriptor',
  connection_ids: 'Connections',
  syscall: 'System call',
};

const ACRONYMS: Record<string, string> = {
  tcp: 'TCP',
  rtt: 'RTT',
  rto: 'RTO',
  ecn: 'ECN',
  syn: 'SYN',
  syns: 'SYNs',
  fin: 'FIN',
  rst: 'RST',
  ms: '(ms)',
};

/** A data key as a label: "median_delay" → "Median delay". */
export function labelOf(key: string): string {
  const known = LABELS[key];
  if (known) return known;
  const text = key
    .replace(/_(s|seconds|bps)$/, '')
    .split('_')
    .map((w) => ACRONYMS[w] ?? w)
    .join(' ');
  return text.charAt(0).toUpperCase() + text.slice(1);
}

function isScalar(value: unknown): value is string | number | boolean {
  return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean';
}

/** One number, formatted by what its key says it is. */
export function formatNumber(key: string, value: number): string {
  if (EXACT_BYTES.has(key)) return formatExactBytes(value);
  if (key.includes('bytes'))
    return value >= 1024 ? `${formatBytes(value)} (${formatCount(value)} B)` : formatExactBytes(value);
  if (key === 'rtt') return formatMs(value * 1000);
  if (key.endsWith('_ms')) return formatMs(value);
  if (key.endsWith('_bps')) return formatBitRate(value);
  if (RATES.has(key)) return formatRate(value);
  if (SHARES.has(key)) return `${(value * 100).toFixed(value < 0.01 ? 2 : 1)} %`;
  if (SECONDS.has(key) || key.endsWith('_s') || key.endsWith('_seconds')) return formatDuration(value);
  return Number.isInteger(value) ? formatCount(value) : value.toLocaleString('en-US', { maximumFractionDigits: 3 });
}

/** Any JSON value as one line of text; null when it is not worth a line (nested tables, empty). */
export function formatValue(key: string, value: unknown): string | null {
  if (value === null || value === undefined || value === '') return null;
  if (typeof value === 'boolean') return value ? 'yes' : 'no';
  if (typeof value === 'number') return formatNumber(key, value);
  if (typeof value === 'string') return value;
  if (Array.isArray(value)) {
    if (value.length === 0) return '—';
    if (!value.every(isScalar)) return null;
    const itemKey = key === 'gaps' ? 'delay' : key;
    return value.map((v) => (typeof v === 'number' ? formatNumber(itemKey, v) : String(v))).join(', ');
  }
  if (isRecord(value)) {
    const entries = Object.entries(value).filter((e): e is [string, string | number | boolean] => isScalar(e[1]));
    if (entries.length === 0 || entries.length !== Object.keys(value).length) return null;
    return entries.map(([k, v]) => `${k} ${typeof v === 'number' ? formatNumber(k, v) : String(v)}`).join(' · ');
  }
  return null;
}

/** An array of objects (the engine's per-connection `rows`): a table. */
export function isRowList(value: unknown): value is Record<string, unknown>[] {
  return Array.isArray(value) && value.length > 0 && value.every(isRecord);
}
