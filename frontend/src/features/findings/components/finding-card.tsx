import { useId } from 'react';

import { Badge } from '@/components/badge';
import type { Finding } from '@/api/types';

import { FINDING_SEVERITY_TONE } from '../labels';

function refText(ref: Record<string, unknown>): string {
  return Object.entries(ref)
    .filter(([, v]) => typeof v === 'string' || typeof v === 'number')
    .map(([k, v]) => `${k} ${String(v)}`)
    .join(', ');
}

/** One thing an analyzer said: severity, a one-line title, the explanation with its numbers, and where it points. */
export function FindingCard({ finding }: { finding: Finding }) {
  const id = useId();
  const refs = finding.refs.map(refText).filter(Boolean);
  return (
    <article className={`finding finding--${finding.severity}`} aria-labelledby={`${id}-title`}>
      <header className="finding__head">
        <Badge tone={FINDING_SEVERITY_TONE[finding.severity]}>{finding.severity}</Badge>
        <h4 id={`${id}-title`}>{finding.title}</h4>
      </header>
      <p className="finding__explanation">{finding.explanation}</p>
      {refs.length > 0 && (
        <ul className="finding__refs" aria-label="References">
          {refs.map((text, i) => (
            <li key={i} className="mono small">
              {text}
            </li>
          ))}
        </ul>
      )}
    </article>
  );
}
