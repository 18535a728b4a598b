import { formatBytes, formatCount, formatDuration } from '@/lib/format';

type Summary = Record<string, unknown>;

/** Keys shown first, in this order, when an analyzer's summary has them (a capture's headline numbers). */
const PREFERRED = [
  'packets',
  'bytes',
  'duration',
  'duration_s',
  'duration_seconds',
  'time_span',
  'link_types',
  'link_type',
  'tcp_connections',
  'connections',
];

const ACRONYMS: Record<string, string> = { tcp: 'TCP', udp: 'UDP', ip: 'IP', ipv4: 'IPv4', ipv6: 'IPv6', rtt: 'RTT' };

function labelOf(key: string): string {
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
    if (/^(duration|time_span)|(_s|_seconds)$/.test(key)) return formatDuration(value);
    return formatCount(value);
  }
  if (isScalar(value)) return String(value);
  if (Array.isArray(value)) {
    const items = value.filter(isScalar).map(String);
    return items.length > 0 ? items.join(', ') : null;
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

/** What the analyzer said about the file as a whole: for a capture, packets, bytes, duration, link types, TCP connections. */
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
    <dl className="summary" aria-label="Summary">
      {rows.map(([key, value]) => (
        <div key={key} className="summary__row">
          <dt>{labelOf(key)}</dt>
          <dd>{value}</dd>
        </div>
      ))}
    </dl>
  );
}
