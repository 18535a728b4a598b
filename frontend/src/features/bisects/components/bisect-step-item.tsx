import { Badge } from '@/components/badge';
import type { BisectRun, BisectStep } from '@/api/types';
import { formatDuration } from '@/lib/format';

import { STEP_VERDICT_LABEL, STEP_VERDICT_TONE } from '../labels';
import { shortCommit } from '../lib/paths';

function RunOutput({ run, number }: { run: BisectRun; number: number }) {
  const exit = run.timed_out ? 'timed out' : run.exit_code === null ? 'no exit status' : `exit ${run.exit_code}`;
  return (
    <div className="bisect-run">
      <p className="small">
        Run {number}: {exit}, {formatDuration(run.duration)}
        {run.metric_value !== null && `, value ${run.metric_value}`}
        {run.error && <span className="error-text"> — {run.error}</span>}
      </p>
      {run.stdout_tail && (
        <pre className="command bisect-run__out" aria-label={`Run ${number} stdout`}>
          {run.stdout_tail}
        </pre>
      )}
      {run.stderr_tail && (
        <pre className="command bisect-run__out" aria-label={`Run ${number} stderr`}>
          {run.stderr_tail}
        </pre>
      )}
    </div>
  );
}

function StepState({ step }: { step: BisectStep }) {
  if (step.status === 'done') {
    return <Badge tone={STEP_VERDICT_TONE[step.verdict]}>{STEP_VERDICT_LABEL[step.verdict]}</Badge>;
  }
  if (step.status === 'running') return <Badge tone="info">Running…</Badge>;
  if (step.status === 'cancelled') return <Badge>Cancelled</Badge>;
  return <Badge>Queued</Badge>;
}

interface BisectStepItemProps {
  step: BisectStep;
  /** Given when this step can be run again (the last step of a failed job). */
  onRetry?: () => void;
  retrying?: boolean;
}

/** One tested commit: its verdict, how long it took, and the end of each run's output. */
export function BisectStepItem({ step, onRetry, retrying = false }: BisectStepItemProps) {
  const name = `Step ${step.index + 1}`;
  return (
    <li className={`bisect-step bisect-step--${step.verdict || step.status}`} aria-label={name}>
      <div className="bisect-step__head">
        <span className="bisect-step__number">{name}</span>
        {step.commit ? (
          <span className="bisect-step__commit">
            <span className="mono" title={step.commit}>
              {shortCommit(step.commit)}
            </span>{' '}
            {step.title}
          </span>
        ) : (
          <span className="muted">picking the next commit…</span>
        )}
        <StepState step={step} />
        <span className="muted small bisect-step__meta">
          {step.duration !== null && formatDuration(step.duration)}
          {step.attempt > 0 && ` · attempt ${step.attempt + 1}`}
          {step.claims > 1 && ` · resumed after a worker was lost (${step.claims} claims)`}
          {step.revisions_left !== null &&
            ` · ${step.revisions_left} revision${step.revisions_left === 1 ? '' : 's'} left`}
        </span>
        {onRetry && (
          <button type="button" className="button button--small" onClick={onRetry} disabled={retrying}>
            {retrying ? 'Retrying…' : 'Retry step'}
          </button>
        )}
      </div>
      {step.reason && <p className="small bisect-step__reason">{step.reason}</p>}
      {step.runs.length > 0 && (
        <details className="bisect-step__output">
          <summary>
            Output of {step.runs.length} run{step.runs.length === 1 ? '' : 's'}
          </summary>
          {step.runs.map((run, i) => (
            <RunOutput key={i} run={run} number={i + 1} />
          ))}
        </details>
      )}
    </li>
  );
}
