import { type ReactNode, useId } from 'react';

import { Badge } from '@/components/badge';
import type { Finding } from '@/api/types';
import { findingAnchorId } from '@/lib/anchors';

import { FINDING_SEVERITY_TONE, severityOf } from '../labels';
import { FindingData } from './finding-data';
import { FindingRefs } from './finding-refs';

/**
 * One thing an analyzer said: severity, a one-line title, the explanation, the numbers behind it
 * (a table per known kind) and links to where it points.
 */
export function FindingCard({
  finding,
  incidentId,
  chart,
}: {
  finding: Finding;
  incidentId: number;
  chart?: ReactNode;
}) {
  const id = useId();
  const severity = severityOf(finding.severity);
  return (
    <article
      className={`finding finding--${severity}`}
      id={findingAnchorId(finding.id)}
      tabIndex={-1}
      aria-labelledby={`${id}-title`}
    >
      <header className="finding__head">
        <Badge tone={FINDING_SEVERITY_TONE[severity]}>{finding.severity}</Badge>
        <h4 id={`${id}-title`}>{finding.title}</h4>
      </header>
      <p className="finding__explanation">{finding.explanation}</p>
      {chart}
      <FindingData kind={finding.kind} data={finding.data} target={{ incidentId, evidenceId: finding.evidence }} />
      <FindingRefs incidentId={incidentId} refs={finding.refs} />
      <p className="finding__kind muted small mono">{finding.kind}</p>
    </article>
  );
}
