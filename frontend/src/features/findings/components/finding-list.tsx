import type { Finding } from '@/api/types';

import { type FindingSource, groupFindings } from '../lib/group';
import { FindingRow } from './finding-card';

/** Findings, most severe first, one folded line each; the same traffic seen from two files is one line. */
export function FindingList({
  findings,
  incidentId,
  empty,
  sources,
}: {
  findings: Finding[];
  incidentId: number;
  empty?: string;
  /** Where each evidence file was taken, by evidence id, for the "seen from" of each line. */
  sources?: ReadonlyMap<number, FindingSource>;
}) {
  if (findings.length === 0) return empty ? <p className="muted small">{empty}</p> : null;
  return (
    <ul className="findings" aria-label="Findings">
      {groupFindings(findings).map((group) => (
        <FindingRow key={group.lead.id} group={group} incidentId={incidentId} sources={sources} />
      ))}
    </ul>
  );
}
