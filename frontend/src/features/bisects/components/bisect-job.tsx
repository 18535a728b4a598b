import { useQuery } from '@tanstack/react-query';
import { useId, useRef, useState } from 'react';

import { ErrorMessage } from '@/components/error-message';
import { Loading } from '@/components/loading';
import { NotFound } from '@/components/not-found';
import { isNotFound } from '@/api/errors';
import type { Bisect } from '@/api/types';
import { formatDateTime } from '@/lib/format';

import { bisectQueryOptions, useCancelBisect, useRetryStep } from '../api/bisects-api';
import { RULE_LABEL } from '../labels';
import { BisectProgress } from './bisect-progress';
import { BisectResult } from './bisect-result';
import { BisectStatusBadge } from './bisect-status-badge';
import { BisectStepItem } from './bisect-step-item';

function CancelBisect({ job }: { job: Bisect }) {
  const cancel = useCancelBisect(job.incident, job.id);
  const [confirming, setConfirming] = useState(false);
  const openButton = useRef<HTMLButtonElement>(null);
  if (!confirming) {
    return (
      <button
        type="button"
        className="button"
        ref={openButton}
        onClick={() => {
          setConfirming(true);
        }}
      >
        Cancel bisect
      </button>
    );
  }
  return (
    <div className="confirm" role="alertdialog" aria-label="Cancel this bisect?" aria-describedby="cancel-bisect-text">
      <p id="cancel-bisect-text">Cancel this bisect? A step that is running finishes, but it is not recorded.</p>
      <div className="form__actions">
        <button
          type="button"
          className="button button--danger"
          // The confirmation takes the focus so that Enter confirms and Escape does not lose the reader.
          autoFocus
          disabled={cancel.isPending}
          onClick={() => {
            cancel.mutate(undefined, {
              onSuccess: () => {
                setConfirming(false);
              },
            });
          }}
        >
          {cancel.isPending ? 'Cancelling…' : 'Yes, cancel it'}
        </button>
        <button
          type="button"
          className="button"
          onClick={() => {
            setConfirming(false);
          }}
        >
          Keep running
        </button>
      </div>
      {cancel.isError && <ErrorMessage>Could not cancel: {cancel.error.message}</ErrorMessage>}
    </div>
  );
}

function JobSpec({ job }: { job: Bisect }) {
  return (
    <dl className="facts facts--wide bisect-spec">
      <div>
        <dt>Range</dt>
        <dd className="mono">
          {job.good} (good) .. {job.bad} (bad)
        </dd>
      </div>
      <div>
        <dt>Repository</dt>
        <dd className="mono">{job.repo}</dd>
      </div>
      <div>
        <dt>Path filter</dt>
        <dd className="mono">{job.path || '—'}</dd>
      </div>
      <div>
        <dt>Reproducer</dt>
        <dd className="mono bisect-spec__command">{job.command}</dd>
      </div>
      <div>
        <dt>Runs with</dt>
        <dd>
          {job.network ? "the workers' network" : 'no network'}
          {Object.keys(job.env).length > 0 && (
            <>
              ; <span className="mono">{Object.keys(job.env).join(', ')}</span> set
            </>
          )}
        </dd>
      </div>
      <div>
        <dt>Verdict rule</dt>
        <dd>
          {RULE_LABEL[job.rule]}
          {job.rule === 'metric' &&
            `: ${job.metric} ${job.direction === 'above_is_bad' ? '>' : '<'} ${job.threshold ?? '?'} is bad`}
          {job.repeats > 1 && `; ${job.repeats} runs per step, ${Math.round(job.min_agreement * 100)}% must agree`}
        </dd>
      </div>
      <div>
        <dt>Started</dt>
        <dd>
          {job.started_by ?? (job.schedule !== null ? `schedule #${job.schedule}` : 'whodunnet')},{' '}
          <time dateTime={job.created_at}>{formatDateTime(job.created_at)}</time>
        </dd>
      </div>
    </dl>
  );
}

/** A bisect job live: progress, the result once found, every step, and the bisect log. */
interface BisectJobProps {
  incidentId: number;
  bisectId: number;
  /** Retrying a step runs the reproducer again: owners only. */
  canRetry: boolean;
}

export function BisectJob({ incidentId, bisectId, canRetry }: BisectJobProps) {
  const bisect = useQuery(bisectQueryOptions(incidentId, bisectId));
  const retry = useRetryStep(incidentId, bisectId);
  const id = useId();

  if (bisect.isPending) return <Loading label="Loading bisect…" />;
  if (bisect.isError) {
    if (isNotFound(bisect.error)) return <NotFound what="Bisect" />;
    return <ErrorMessage>Could not load the bisect: {bisect.error.message}</ErrorMessage>;
  }
  const job = bisect.data;
  const last = job.steps.at(-1);

  return (
    <div className="bisect-job">
      <header className="section-head">
        <h1>Bisect #{job.id}</h1>
        <BisectStatusBadge status={job.status} />
        {!job.finished && <CancelBisect job={job} />}
      </header>
      <JobSpec job={job} />
      <section className="section" aria-labelledby={`${id}-progress`}>
        <h2 id={`${id}-progress`}>Progress</h2>
        <BisectProgress job={job} />
      </section>
      <BisectResult job={job} />
      <section className="section" aria-labelledby={`${id}-steps`}>
        <h2 id={`${id}-steps`}>Steps</h2>
        {job.steps.length === 0 ? (
          <p className="muted">No step yet.</p>
        ) : (
          <ol className="bisect-steps" aria-label="Bisect steps" aria-live="polite">
            {job.steps.map((step) => (
              <BisectStepItem
                key={step.id}
                step={step}
                retrying={retry.isPending}
                onRetry={
                  canRetry && job.status === 'failed' && step.id === last?.id
                    ? () => {
                        retry.mutate(step.id);
                      }
                    : undefined
                }
              />
            ))}
          </ol>
        )}
        {retry.isError && <ErrorMessage>Could not retry the step: {retry.error.message}</ErrorMessage>}
      </section>
      <details className="bisect-log">
        <summary>Bisect log</summary>
        {job.log ? (
          <pre className="command" aria-label="Bisect log">
            {job.log}
          </pre>
        ) : (
          <p className="muted small">Empty until the first step is recorded.</p>
        )}
      </details>
    </div>
  );
}
