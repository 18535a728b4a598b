import type { Finding } from '@/api/types';

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

/**
 * Merges findings of the same kind with the same key (the engine's own name for the traffic a finding is
 * about: a connection, a prefix, an interface) made from different files, so the same thing seen from two
 * vantage points is one line. Findings without a key, or from the same file, stay apart. Most severe first.
 */
export function groupFindings(findings: readonly Finding[]): FindingGroup[] {
  const groups = new Map<string, Finding[]>();
  const alone: Finding[][] = [];
  for (const finding of findings) {
    if (!finding.key) {
      alone.push([finding]);
      continue;
    }
    const name = `${finding.kind}\u0000${finding.key}`;
    const group = groups.get(name);
    if (group && !group.some((f) => f.evidence === finding.evidence)) group.push(finding);
    else if (group) alone.push([finding]);
    else groups.set(name, [finding]);
  }
  return [...groups.values(), ...alone]
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

/** "client.pcap on web-1 (client)", "nstat.txt", or "several files" for a finding across evidence. */
export function describeSource(source: FindingSource | undefined): string {
  if (!source) return 'several files';
  const role = source.role ? ROLE_WORD[source.role] : undefined;
  const where = source.host ? ` on ${source.host}${role ? ` (${role})` : ''}` : role ? ` (${role})` : '';
  return `${source.filename}${where}`;
}
