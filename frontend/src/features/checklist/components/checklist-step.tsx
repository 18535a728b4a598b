import { type ReactNode, useEffect, useId, useRef, useState } from 'react';

import type { ChecklistStep as Step, Finding, Verdict } from '@/api/types';
import { InlineCode } from '@/components/inline-code';
import { formatDateTime } from '@/lib/format';

import { LAYER_LABEL } from '../labels';
import { stepAnchorId } from '../lib/strip';
import { Suggestion, WouldSettle } from './suggestion';
import { VerdictBadge } from './verdict-badge';
import { VerdictForm } from './verdict-form';

interface ChecklistStepProps {
  incidentId: number;
  step: Step;
  position: number;
  renderFindings: (findings: Finding[]) => ReactNode;
  /** Every finding's title by id, for the findings a suggestion cites. */
  titles?: ReadonlyMap<number, string>;
  /** Actions that belong to this layer, shown under the step. */
  actions?: ReactNode;
}

type Editing = { verdict?: Verdict; rationale?: string } | null;

/** One layer of the checklist: verdict and why, the findings that speak to it, a suggestion, and what would settle it. */
export function ChecklistStep({ incidentId, step, position, renderFindings, titles, actions }: ChecklistStepProps) {
  const [editing, setEditing] = useState<Editing>(null);
  const id = useId();
  const label = LAYER_LABEL[step.layer];
  // Keyboard users land back where they were when the form closes (saved, cancelled or Escape).
  const change = useRef<HTMLButtonElement>(null);
  const wasEditing = useRef(false);
  useEffect(() => {
    if (editing === null && wasEditing.current) change.current?.focus();
    wasEditing.current = editing !== null;
  }, [editing]);

  return (
    <li className={`step step--${step.verdict}`} id={stepAnchorId(step.layer)} tabIndex={-1}>
      <section className="step__body" aria-labelledby={`${id}-title`}>
        <header className="step__head">
          <span className="step__number" aria-hidden="true">
            {position}
          </span>
          <h3 id={`${id}-title`}>{label}</h3>
          <VerdictBadge verdict={step.verdict} />
          {editing === null && (
            <button
              ref={change}
              type="button"
              className="button button--small step__change"
              aria-label={`Change verdict for ${label}`}
              onClick={() => {
                setEditing({});
              }}
            >
              Change verdict
            </button>
          )}
        </header>

        {step.rationale ? (
          <p className="step__rationale">
            <InlineCode text={step.rationale} />
            {step.updated_by && (
              <span className="muted small">
                {' '}
                — {step.updated_by}
                {step.updated_at && (
                  <>
                    , <time dateTime={step.updated_at}>{formatDateTime(step.updated_at)}</time>
                  </>
                )}
              </span>
            )}
          </p>
        ) : (
          <p className="muted small">No verdict given yet.</p>
        )}

        {editing !== null && (
          <VerdictForm
            incidentId={incidentId}
            step={step}
            initialVerdict={editing.verdict}
            initialRationale={editing.rationale}
            onDone={() => {
              setEditing(null);
            }}
          />
        )}

        {step.suggestion && (
          <Suggestion
            suggestion={step.suggestion}
            label={label}
            titles={titles}
            agreed={step.suggestion.verdict === step.verdict}
            action={
              editing === null &&
              step.suggestion.verdict !== step.verdict && (
                <button
                  type="button"
                  className="button button--small"
                  aria-label={`Review suggestion for ${label}`}
                  onClick={() => {
                    if (step.suggestion)
                      setEditing({ verdict: step.suggestion.verdict, rationale: step.suggestion.reason });
                  }}
                >
                  Review suggestion
                </button>
              )
            }
          />
        )}

        {renderFindings(step.findings)}

        {!step.suggestion &&
          (step.needs.length > 0 ? (
            <WouldSettle needs={step.needs} label={label} />
          ) : (
            step.hint && (
              <p className="step__hint small">
                <span className="muted">To settle it: </span>
                <InlineCode text={step.hint} />
              </p>
            )
          ))}

        {actions && <div className="step__actions">{actions}</div>}
      </section>
    </li>
  );
}
