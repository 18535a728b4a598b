import type { ReactNode } from 'react';

import type { Finding } from '@/api/types';

import { FINDING_SEVERITY_RANK, severityOf } from '../labels';
import { FindingCard } from './finding-card';

/** Findings, most severe first (then in the order they were made). */
export function FindingList({
  findings,
  incidentId,
  empty,
  renderChart,
}: {
  findings: Finding[];
  incidentId: number;
  empty?: string;
  /** A chart for a finding, composed by the app (charts are another feature); null for none. */
  renderChart?: (finding: Finding) => ReactNode;
}) {
  if (findings.length === 0) return empty ? <p className="muted small">{empty}</p> : null;
  const sorted = [...findings].sort(
    (a, b) =>
      FINDING_SEVERITY_RANK[severityOf(a.severity)] - FINDING_SEVERITY_RANK[severityOf(b.severity)] || a.id - b.id,
  );
  return (
    <div className="findings">
      {sorted.map((f) => (
        <FindingCard key={f.id} finding={f} incidentId={incidentId} chart={renderChart?.(f)} />
      ))}
    </div>
  );
}
