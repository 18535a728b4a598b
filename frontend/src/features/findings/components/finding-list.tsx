import type { Finding } from '@/api/types';

import { FINDING_SEVERITY_RANK, severityOf } from '../labels';
import { FindingCard } from './finding-card';

/** Findings, most severe first (then in the order they were made). */
export function FindingList({
  findings,
  incidentId,
  empty,
}: {
  findings: Finding[];
  incidentId: number;
  empty?: string;
}) {
  if (findings.length === 0) return empty ? <p className="muted small">{empty}</p> : null;
  const sorted = [...findings].sort(
    (a, b) =>
      FINDING_SEVERITY_RANK[severityOf(a.severity)] - FINDING_SEVERITY_RANK[severityOf(b.severity)] || a.id - b.id,
  );
  return (
    <div className="findings">
      {sorted.map((f) => (
        <FindingCard key={f.id} finding={f} incidentId={incidentId} />
      ))}
    </div>
  );
}
