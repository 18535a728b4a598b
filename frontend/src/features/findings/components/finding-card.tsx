import { useId } from 'react';

import { Badge } from '@/components/badge';
import type { Finding } from '@/api/types';

import { isRecord } from '@/lib/narrow';

import { FINDING_SEVERITY_TONE, severityOf } from '../labels';

/** Keys of a reference that mean nothing to a reader (the engine's index of the file in its run). */
const HIDDEN_REF_KEYS = new Set(['label', 'evidence']);

/**
 * One reference into the evidence as a line: its label when it has one ("whole capture"), then the
 * rest ("stream 3, packets 120-180").
 */
function refText(ref: unknown): string {
  if (!isRecord(ref)) return typeof ref === 'string' ? ref : '';
  const parts = Object.entries(ref)
    .filter(([k, v]) => !HIDDEN_REF_KEYS.has(k) && (typeof v === 'string' || typeof v === 'number'))
    .map(([k, v]) => `${k} ${String(v)}`);
  const label = typeof ref.label === 'string' ? ref.label : '';
  return [label, parts.join(', ')].filter(Boolean).join(': ');
}

/** One thing an analyzer said: severity, a one-line title, the explanation with its numbers, and where it points. */
export function FindingCard({ finding }: { finding: Finding }) {
  const id = useId();
  const severity = severityOf(finding.severity);
  const refs = Array.isArray(finding.refs) ? finding.refs.map(refText).filter(Boolean) : [];
  return (
    <article className={`finding finding--${severity}`} aria-labelledby={`${id}-title`}>
      <header className="finding__head">
        <Badge tone={FINDING_SEVERITY_TONE[severity]}>{finding.severity}</Badge>
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
