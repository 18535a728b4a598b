import { useQuery } from '@tanstack/react-query';
import { type ReactNode, useId } from 'react';

import { ErrorMessage } from '@/components/error-message';
import { Loading } from '@/components/loading';
import type { Finding, Layer } from '@/api/types';

import { checklistQueryOptions } from '../api/checklist-api';
import { LAYERS } from '../labels';
import { ChecklistStep } from './checklist-step';

interface ChecklistProps {
  incidentId: number;
  /** How a step shows its findings; the app passes the findings feature's list. */
  renderFindings: (findings: Finding[]) => ReactNode;
  /** Extra actions for a step (the app offers "Start a bisect" on the kernel step). */
  renderStepActions?: (layer: Layer) => ReactNode;
}

/** Blame the neighbours → the network → the application → the kernel, always in that order. */
export function Checklist({ incidentId, renderFindings, renderStepActions }: ChecklistProps) {
  const checklist = useQuery(checklistQueryOptions(incidentId));
  const id = useId();
  const steps = checklist.data ? LAYERS.flatMap((layer) => checklist.data.filter((s) => s.layer === layer)) : undefined;
  // Every finding of the incident by id: a suggestion's reason may cite findings of other steps.
  const titles = new Map((steps ?? []).flatMap((s) => s.findings.map((f) => [f.id, f.title] as const)));

  return (
    <section className="section" aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>Checklist</h2>
      {checklist.isPending && <Loading label="Loading checklist…" />}
      {checklist.isError && <ErrorMessage>Could not load the checklist: {checklist.error.message}</ErrorMessage>}
      {steps && (
        <ol className="steps" aria-label="Checklist steps">
          {steps.map((step, index) => (
            <ChecklistStep
              key={step.layer}
              incidentId={incidentId}
              step={step}
              position={index + 1}
              renderFindings={renderFindings}
              titles={titles}
              actions={renderStepActions?.(step.layer)}
            />
          ))}
        </ol>
      )}
    </section>
  );
}
