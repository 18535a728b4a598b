import { useQuery } from '@tanstack/react-query';
import type { ReactNode } from 'react';

import { ErrorMessage } from '@/components/error-message';
import { InlineCode } from '@/components/inline-code';
import { Loading } from '@/components/loading';
import { withoutBackticks } from '@/lib/inline-code';
import type { ChecklistStep } from '@/api/types';

import { checklistQueryOptions } from '../api/checklist-api';
import { stepAnchorId, firstSentence } from '../lib/strip';
import { LAYER_LABEL, LAYERS } from '../labels';
import { VerdictBadge } from './verdict-badge';

/** What a layer stands at: the team's verdict when one is given, else the evidence's suggestion, else nothing yet. */
function LayerCell({ step }: { step: ChecklistStep }) {
  const label = LAYER_LABEL[step.layer];
  const confirmed = step.verdict !== 'not_looked_at';
  const suggestion = step.suggestion;
  let state: ReactNode;
  let reason: string;
  if (confirmed) {
    state = <VerdictBadge verdict={step.verdict} />;
    reason = firstSentence(step.rationale);
  } else if (suggestion) {
    state = (
      <>
        <span className="verdict-strip__suggested">Suggested</span> <VerdictBadge verdict={suggestion.verdict} />
      </>
    );
    reason = firstSentence(suggestion.reason);
  } else {
    state = <VerdictBadge verdict="not_looked_at" />;
    // What would settle the step, as the step below says it ("To settle it: upload `ethtool IFACE` …").
    reason = step.needs[0] ? `To settle it: ${step.needs[0]}` : firstSentence(step.hint) || 'No findings yet.';
  }
  return (
    <li
      className={`verdict-strip__layer verdict-strip__layer--${confirmed ? step.verdict : (suggestion?.verdict ?? 'none')}`}
    >
      <a className="verdict-strip__name" href={`#${stepAnchorId(step.layer)}`}>
        {label}
      </a>
      <div className="verdict-strip__state">{state}</div>
      <p className="verdict-strip__reason" title={withoutBackticks(reason)}>
        <InlineCode text={reason} />
      </p>
    </li>
  );
}

/** The answer first: the four layers side by side, each with its verdict or suggestion and the one-line reason. */
export function VerdictStrip({ incidentId }: { incidentId: number }) {
  const checklist = useQuery(checklistQueryOptions(incidentId));
  return (
    <section className="verdict-strip" aria-label="Verdicts by layer">
      {checklist.isPending && <Loading label="Loading verdicts…" />}
      {checklist.isError && <ErrorMessage>Could not load the verdicts: {checklist.error.message}</ErrorMessage>}
      {checklist.data && (
        <ol className="verdict-strip__layers">
          {LAYERS.flatMap((layer) => checklist.data.filter((s) => s.layer === layer)).map((step) => (
            <LayerCell key={step.layer} step={step} />
          ))}
        </ol>
      )}
    </section>
  );
}
