import type { ReactNode } from 'react';

import type { ChecklistStep } from '@/api/types';
import { InlineCode } from '@/components/inline-code';
import { findingAnchorId } from '@/lib/anchors';

import { VerdictBadge } from './verdict-badge';

type Suggested = NonNullable<ChecklistStep['suggestion']>;

/** What would settle a step: the files the evidence still lacks, one per line. */
export function WouldSettle({ needs, label }: { needs: string[]; label: string }) {
  if (needs.length === 0) return null;
  return (
    <div className="step__needs small">
      <span className="muted">Would settle it:</span>
      <ul aria-label={`What would settle ${label}`}>
        {needs.map((need) => (
          <li key={need}>
            <InlineCode text={need} />
          </li>
        ))}
      </ul>
    </div>
  );
}

/** The findings a suggestion's reason cites, each a link that brings its line into view. */
function CitedFindings({ cited, label }: { cited: { id: number; title: string }[]; label: string }) {
  if (cited.length === 0) return null;
  return (
    <div className="step__cited small">
      <span className="muted">From the findings:</span>
      <ul aria-label={`Findings behind the suggestion for ${label}`}>
        {cited.map((f) => (
          <li key={f.id}>
            <a
              href={`#${findingAnchorId(f.id)}`}
              onClick={(event) => {
                const card = document.getElementById(findingAnchorId(f.id));
                if (!card) return;
                event.preventDefault();
                card.scrollIntoView({ block: 'center' });
                card.focus({ preventScroll: true });
              }}
            >
              {f.title}
            </a>
          </li>
        ))}
      </ul>
    </div>
  );
}

/**
 * The verdict the evidence suggests for a step (cleared, suspect or culprit) with its chain of evidence in one
 * paragraph and, while the chain is not complete, what would settle it. A person still decides.
 */
export function Suggestion({
  suggestion,
  label,
  action,
  titles,
  agreed = false,
}: {
  suggestion: Suggested;
  label: string;
  action?: ReactNode;
  /** The team's verdict is the suggested one: the chain of evidence folds behind one line. */
  agreed?: boolean;
  /** Every finding's title by id: the findings the reason cites are linked by title. */
  titles?: ReadonlyMap<number, string>;
}) {
  const cited = suggestion.findings.flatMap((id) => {
    const title = titles?.get(id);
    return title ? [{ id, title }] : [];
  });
  if (agreed) {
    return (
      <>
        <details className="step__suggestion step__suggestion--agreed" aria-label={`Suggestion for ${label}`}>
          <summary className="small">
            The evidence suggested the same: <VerdictBadge verdict={suggestion.verdict} /> (its chain of evidence)
          </summary>
          <p className="step__reason">
            <InlineCode text={suggestion.reason} />
          </p>
          <CitedFindings cited={cited} label={label} />
        </details>
        <WouldSettle needs={suggestion.needs} label={label} />
      </>
    );
  }
  return (
    <div className="step__suggestion" aria-label={`Suggestion for ${label}`} role="group">
      <p className="step__suggestion-head">
        <span>Suggested:</span> <VerdictBadge verdict={suggestion.verdict} />
        {action}
      </p>
      <p className="step__reason">
        <InlineCode text={suggestion.reason} />
      </p>
      <CitedFindings cited={cited} label={label} />
      <WouldSettle needs={suggestion.needs} label={label} />
    </div>
  );
}
