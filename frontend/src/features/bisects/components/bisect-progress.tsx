import { ProgressBar } from '@/components/progress-bar';
import type { Bisect } from '@/api/types';
import { formatCount, formatDuration } from '@/lib/format';

import { progressPercent } from '../lib/progress';

function value(n: number | null, format: (n: number) => string = formatCount): string {
  return n === null ? '—' : format(n);
}

/** Steps done, revisions left, and the estimates of steps and time left, with a progress bar. */
export function BisectProgress({ job }: { job: Bisect }) {
  const { steps_done, revisions_left, steps_left, mean_step_seconds, seconds_left } = job.progress;
  const percent = progressPercent(job);
  const estimate = steps_left === null ? '' : ` of about ${steps_done + steps_left}`;
  return (
    <div className="bisect-progress">
      <ProgressBar
        percent={percent}
        label="Bisect progress"
        valueText={`${Math.round(percent)}% (${steps_done} step${steps_done === 1 ? '' : 's'} done${estimate})`}
      />
      <dl className="facts facts--wide" aria-label="Progress numbers">
        <div>
          <dt>Steps done</dt>
          <dd>{formatCount(steps_done)}</dd>
        </div>
        <div>
          <dt>Revisions left</dt>
          <dd>{value(revisions_left)}</dd>
        </div>
        <div>
          <dt>Estimated steps left</dt>
          <dd>{value(steps_left)}</dd>
        </div>
        <div>
          <dt>Estimated time left</dt>
          <dd>{job.finished ? '—' : value(seconds_left, formatDuration)}</dd>
        </div>
        <div>
          <dt>Mean step time</dt>
          <dd>{value(mean_step_seconds, formatDuration)}</dd>
        </div>
      </dl>
    </div>
  );
}
