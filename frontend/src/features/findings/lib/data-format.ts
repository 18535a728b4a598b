import { kindInfo } from '@/api/evidence-kinds';
import type { EvidenceKindCatalogue, FindingField, FindingSpec, FindingUnit } from '@/api/types';
import {
  formatBitRate,
  formatBytes,
  formatCount,
  formatDateTime,
  formatDuration,
  formatExactBytes,
  formatMs,
  formatRate,
} from '@/lib/format';
import { isRecord } from '@/lib/narrow';

/** How each data key of a finding is shown: its label and unit, as the engine declares them. */
export type Fields = ReadonlyMap<string, FindingField>;

/** A finding's keys: those of the evidence kind that emits it, and its own (the engine's findings). */
export function fieldsOf(catalogue: EvidenceKindCatalogue | undefined, spec: FindingSpec | undefined): Fields {
  const keys = [...(kindInfo(catalogue, spec?.evidence_kind ?? '')?.keys ?? []), ...(spec?.keys ?? [])];
  return new Map(keys.map((field) => [field.key, field]));
}

const ACRONYMS: Record<string, string> = {
  tcp: 'TCP',
  rtt: 'RTT',
  rto: 'RTO',
  ecn: 'ECN',
  syn: 'SYN',
  fin: 'FIN',
  rst: 'RST',
  ms: '(ms)',
};

/** A key the engine did not describe, in words: "median_delay" → "Median delay". */
export function labelOf(key: string): string {
  const text = key
    .replace(/_(s|seconds|bps)$/, '')
    .split('_')
    .map((w) => ACRONYMS[w] ?? w)
    .join(' ');
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** For a key the engine did not describe (a finding kind an older version stored): the unit its name suggests. */
function guessedUnit(key: string): FindingUnit {
  if (key.includes('bytes')) return 'bytes';
  if (key.endsWith('_ms')) return 'ms';
  if (key.endsWith('_bps')) return 'bit/s';
  if (key.endsWith('_s') || key.endsWith('_seconds')) return 'seconds';
  if (key === 'rate' || key === 'share' || key.endsWith('_share')) return 'share';
  return 'count';
}

/** The key's declared label and unit, or words and a unit from its name when undeclared. */
export function fieldOf(fields: Fields, key: string): FindingField {
  return fields.get(key) ?? { key, label: labelOf(key), unit: guessedUnit(key) };
}

function isScalar(value: unknown): value is string | number | boolean {
  return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean';
}

/** One number in its unit. */
export function formatNumber(unit: FindingUnit, value: number): string {
  switch (unit) {
    case 'bytes':
      return value >= 1024 ? `${formatBytes(value)} (${formatCount(value)} B)` : formatExactBytes(value);
    case 'bytes_exact':
      return formatExactBytes(value);
    case 'seconds':
      return formatDuration(value);
    case 'ms':
      return formatMs(value);
    case 'bit/s':
      return formatBitRate(value);
    case 'bytes/s':
      return formatRate(value);
    case 'share':
      return `${(value * 100).toFixed(value < 0.01 ? 2 : 1)} %`;
    case 'ratio':
      return `${value.toLocaleString('en-US', { maximumFractionDigits: value >= 10 ? 0 : 1 })}×`;
    case 'timestamp':
      return formatDateTime(new Date(value * 1000).toISOString());
    case 'connection':
      return `connection ${String(value)}`;
    case 'count':
      if (Number.isInteger(value)) return formatCount(value);
      return value.toLocaleString('en-US', { maximumFractionDigits: 3 });
    case 'number':
    case 'text':
      return value.toLocaleString('en-US', { maximumFractionDigits: 3 });
  }
}

/**
 * Any JSON value as one line of text; null when it is not worth a line (nested tables, empty). A
 * list's items take the field's unit; a map's values their own key's unit, else the field's.
 */
export function formatValue(field: FindingField, value: unknown, fields: Fields): string | null {
  if (value === null || value === undefined || value === '') return null;
  if (typeof value === 'boolean') return value ? 'yes' : 'no';
  if (typeof value === 'number') return formatNumber(field.unit, value);
  if (typeof value === 'string') return value;
  if (Array.isArray(value)) {
    if (value.length === 0) return '—';
    if (!value.every(isScalar)) return null;
    // A list of sentences (what the data can and cannot tell) reads as a paragraph, not "a., b.".
    if (value.every((v) => typeof v === 'string' && /[.!?]$/.test(v))) return value.join(' ');
    return value.map((v) => (typeof v === 'number' ? formatNumber(field.unit, v) : String(v))).join(', ');
  }
  if (isRecord(value)) {
    const entries = Object.entries(value).filter((e): e is [string, string | number | boolean] => isScalar(e[1]));
    if (entries.length === 0 || entries.length !== Object.keys(value).length) return null;
    return entries
      .map(([k, v]) => `${k} ${typeof v === 'number' ? formatNumber((fields.get(k) ?? field).unit, v) : String(v)}`)
      .join(' · ');
  }
  return null;
}

/** An array of objects (the engine's per-connection `rows`): a table. */
export function isRowList(value: unknown): value is Record<string, unknown>[] {
  return Array.isArray(value) && value.length > 0 && value.every(isRecord);
}
