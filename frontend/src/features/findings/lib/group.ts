import type { Finding } from '@/api/types';

import { isRecord } from '@/lib/narrow';

import { FINDING_SEVERITY_RANK, severityOf } from '../labels';

/** Where a finding was seen from: the file and the host it was taken on, as the evidence's provenance says. */
export interface FindingSource {
  filename: string;
  host: string | null;
  role: string | null;
}

/** Findings of one kind about the same traffic, one per file that saw it (usually one; two with two captures). */
export interface FindingGroup {
  /** The most severe of the group (then the oldest): its severity and title stand for the line. */
  lead: Finding;
  findings: Finding[];
}

const bySeverity = (a: Finding, b: Finding) =>
  FINDING_SEVERITY_RANK[severityOf(a.severity)] - FINDING_SEVERITY_RANK[severityOf(b.severity)] || a.id - b.id;

/** The span of wall-clock time a finding's references cover (epoch seconds), or null when they give none. */
export function timeSpan(finding: Finding): readonly [number, number] | null {
  if (!Array.isArray(finding.refs)) return null;
  let span: [number, number] | null = null;
  for (const ref of finding.refs as unknown[]) {
    if (!isRecord(ref) || !Array.isArray(ref.time) || ref.time.length !== 2) continue;
    const [from, to] = ref.time as unknown[];
    if (typeof from !== 'number' || typeof to !== 'number') continue;
    span = span ? [Math.min(span[0], from), Math.max(span[1], to)] : [from, to];
  }
  return span;
}

const overlaps = (a: readonly [number, number], b: readonly [number, number]) => a[0] <= b[1] && b[0] <= a[1];

/** The evidence ids a finding's references point into, in order, each once. */
function refFiles(finding: Finding): number[] {
  if (!Array.isArray(finding.refs)) return [];
  const ids = (finding.refs as unknown[]).flatMap((ref) =>
    isRecord(ref) && typeof ref.evidence === 'number' ? [ref.evidence] : [],
  );
  return [...new Set(ids)];
}

/**
 * Merges what is the same traffic seen from two files: findings of the same kind and the same key (the
 * engine's name for what a finding is about within its file) from different files whose references cover
 * overlapping wall-clock time. Keys alone are not enough: a key such as "evidence-0" is the same in every
 * capture. Findings without a key or without a time, or from the same file, stay apart. A finding drawn
 * across files (an strace's deadline joined with each of two captures of the same connection) merges with
 * another of its kind that says the very same title from another set of files. Most severe first.
 */
export function groupFindings(findings: readonly Finding[]): FindingGroup[] {
  const groups: { name: string; span: readonly [number, number]; members: Finding[] }[] = [];
  const across: Finding[][] = [];
  const alone: Finding[][] = [];
  for (const finding of findings) {
    if (finding.evidence === null) {
      const files = refFiles(finding).join(',');
      const same = across.find(
        (g) =>
          g[0]?.kind === finding.kind &&
          g[0].title === finding.title &&
          !g.some((f) => refFiles(f).join(',') === files),
      );
      if (same) same.push(finding);
      else across.push([finding]);
      continue;
    }
    const span = timeSpan(finding);
    if (!finding.key || !span) {
      alone.push([finding]);
      continue;
    }
    const name = `${finding.kind}\u0000${finding.key}`;
    const group = groups.find(
      (g) => g.name === name && overlaps(g.span, span) && !g.members.some((f) => f.evidence === finding.evidence),
    );
    if (group) {
      group.members.push(finding);
      group.span = [Math.min(group.span[0], span[0]), Math.max(group.span[1], span[1])];
    } else groups.push({ name, span, members: [finding] });
  }
  return [...groups.map((g) => g.members), ...across, ...alone]
    .flatMap((members) => {
      const sorted = [...members].sort(bySeverity);
      const lead = sorted.at(0);
      return lead ? [{ lead, findings: sorted }] : [];
    })
    .sort((a, b) => bySeverity(a.lead, b.lead));
}

const ROLE_WORD: Record<string, string> = {
  client: 'client',
  server: 'server',
  middlebox: 'middlebox',
  hypervisor: 'hypervisor',
  other: 'other host',
};

function where(source: FindingSource): string {
  const role = source.role ? ROLE_WORD[source.role] : undefined;
  return source.host ? ` on ${source.host}${role ? ` (${role})` : ''}` : role ? ` (${role})` : '';
}

/** "client.pcap on web-1 (client)", "nstat.txt", or "several files" when the file is not known. */
export function describeSource(source: FindingSource | undefined): string {
  if (!source) return 'several files';
  return `${source.filename}${where(source)}`;
}

function joined(names: string[]): string {
  return names.length > 1 ? `${names.slice(0, -1).join(', ')} and ${names.at(-1) ?? ''}` : (names[0] ?? '');
}

/**
 * Where a finding comes from: its file, or for a finding drawn across files every file its references name
 * ("client-nstat-before.txt and client-nstat-after.txt on client (client)" when they share a host).
 */
export function describeFinding(finding: Finding, sources: ReadonlyMap<number, FindingSource> | undefined): string {
  if (finding.evidence !== null) return describeSource(sources?.get(finding.evidence));
  return describeFiles(refFiles(finding), sources);
}

/** Files by the host they were taken on: "a.strace and a.pcap on web-1 (client), b.pcap on db-1 (server)". */
function describeFiles(ids: readonly number[], sources: ReadonlyMap<number, FindingSource> | undefined): string {
  const byPlace = new Map<string, string[]>();
  for (const id of new Set(ids)) {
    const source = sources?.get(id);
    if (source) byPlace.set(where(source), [...(byPlace.get(where(source)) ?? []), source.filename]);
  }
  if (byPlace.size === 0) return 'several files';
  return [...byPlace].map(([place, names]) => `${joined(names)}${place}`).join(', ');
}

/** The line's "where from": one file, two files seeing the same traffic, or every file a merged group drew on. */
export function describeGroup(group: FindingGroup, sources: ReadonlyMap<number, FindingSource> | undefined): string {
  const { lead, findings } = group;
  if (findings.length === 1) return describeFinding(lead, sources);
  if (lead.evidence === null)
    return `the same from ${String(findings.length)} sets of files: ${describeFiles(findings.flatMap(refFiles), sources)}`;
  return `seen from ${String(findings.length)} files: ${findings.map((f) => describeFinding(f, sources)).join(' and ')}`;
}
