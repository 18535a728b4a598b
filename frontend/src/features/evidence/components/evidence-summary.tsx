import { formatBytes, formatCount, formatDateTime, formatDuration } from '@/lib/format';

type Summary = Record<string, unknown>;

/**
 * Keys shown first, in this order, when an analyzer's summary has them (a capture's numbers, as the
 * engine's capture summary names them); any other key follows in alphabetical order.
 */
const PREFERRED = [
  'packets',
  'bytes',
  'captured_bytes',
  'duration',
  'first_ts',
  'last_ts',
  'tcp_connections',
  'tcp_packets',
  'link_types',
  'format',
  'compressed',
  'truncated_packets',
  'ip_fragments',
];

const LABELS: Record<string, string> = {
  bytes: 'Bytes on the wire',
  captured_bytes: 'Bytes captured',
  first_ts: 'First packet',
  last_ts: 'Last packet',
};

const ACRONYMS: Record<string, string> = { tcp: 'TCP', udp: 'UDP', ip: 'IP', ipv4: 'IPv4', ipv6: 'IPv6', rtt: 'RTT' };

function labelOf(key: string): string {
  const known = LABELS[key];
  if (known) return known;
  const words = key
    .replace(/_(s|seconds)$/, '')
    .split('_')
    .map((w) => ACRONYMS[w] ?? w);
  const text = words.join(' ');
  return text.charAt(0).toUpperCase() + text.slice(1);
}

function isScalar(value: unknown): value is string | number | boolean {
  return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean';
}

function valueOf(key: string, value: unknown): string | null {
  if (value === null || value === undefined) return null;
  if (typeof value === 'number') {
    if (key.endsWith('bytes')) return `${formatBytes(value)} (${formatCount(value)} B)`;
    if (key.endsWith('_ts')) return formatDateTime(new Date(value * 1000).toISOString());
    if (/^(duration|time_span)|(_s|_seconds)$/.test(key)) return formatDuration(value);
    return formatCount(value);
  }
  if (typeof value === 'boolean') return value ? 'yes' : 'no';
  if (typeof value === 'string') return value;
  if (Array.isArray(value)) {
    const items = value.filter(isScalar).map(String);
    return items.length > 0 ? items.join(', ') : '—';
  }
  if (typeof value === 'object') {
    // Small maps such as {"EN10MB": 1200, "LINUX_SLL2": 30}: "EN10MB 1,200 · LINUX_SLL2 30".
    const entries = Object.entries(value).filter((entry): entry is [string, string | number | boolean] =>
      isScalar(entry[1]),
    );
    if (entries.length === 0 || entries.length > 8) return null;
    return entries.map(([k, v]) => `${k} ${typeof v === 'number' ? formatCount(v) : String(v)}`).join(' · ');
  }
  return null;
}

/**
 * Every number the analyzer read from the file as a whole (for a capture: packets, bytes, duration, link types,
 * TCP connections; for a text file also what the parser skipped), folded: the card's first line says what
 * the file shows.
 */
export function EvidenceSummary({ summary }: { summary: Summary }) {
  const keys = [
    ...PREFERRED.filter((k) => k in summary),
    ...Object.keys(summary)
      .filter((k) => !PREFERRED.includes(k))
      .sort(),
  ];
  const rows = keys
    .map((key) => [key, valueOf(key, summary[key])] as const)
    .filter((row): row is readonly [string, string] => row[1] !== null);
  if (rows.length === 0) return null;
  return (
    <div className="summary-block">
      <details className="summary__details">
        <summary>All numbers</summary>
        <dl className="summary" aria-label="Summary">
          {rows.map(([key, value]) => (
            <div key={key} className="summary__row">
              <dt>{labelOf(key)}</dt>
              <dd>{value}</dd>
            </div>
          ))}
        </dl>
      </details>
    </div>
  );
}
