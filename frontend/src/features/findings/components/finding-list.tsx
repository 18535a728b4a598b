import type { ReactNode } from 'react';

import type { Finding } from '@/api/types';

import { type FindingSource, groupFindings } from '../lib/group';
import { FindingRow } from './finding-card';

/** Findings, most severe first, one folded line each; the same traffic seen from two files is one line. */
export function FindingList({
  findings,
  incidentId,
  empty,
  renderChart,
  sources,
}: {
  findings: Finding[];
  incidentId: number;
  empty?: string;
  /** A chart for a finding, composed by the app (charts are another feature); null for none. */
  renderChart?: (finding: Finding) => ReactNode;
  /** Where each evidence file was taken, by evidence id, for the "seen from" of each line. */
  sources?: ReadonlyMap<number, FindingSource>;
}) {
  if (findings.length === 0) return empty ? <p className="muted small">{empty}</p> : null;
  // Keyed by what a line is about, not by finding id: a new analysis replaces the findings (new ids) and
  // an opened line must stay open.
  const seen = new Map<string, number>();
  const keyed = groupFindings(findings).map((group) => {
    const name = `${group.lead.kind}\u0000${group.lead.key}\u0000${String(group.lead.evidence)}`;
    const n = seen.get(name) ?? 0;
    seen.set(name, n + 1);
    return { group, key: `${name}\u0000${String(n)}` };
  });
  return (
    <ul className="findings" aria-label="Findings">
      {keyed.map(({ group, key }) => (
        <FindingRow
          key={key}
          group={group}
          incidentId={incidentId}
          sources={sources}
          chart={renderChart?.(group.lead)}
        />
      ))}
    </ul>
  );
}
