import type { Bisect } from '@/api/types';

/**
 * Share of the work done: steps done against steps done + estimated steps left. The estimate is
 * ceil(log2(revisions left)), so the bar moves by about one step's worth each time.
 */
export function progressPercent(job: Bisect): number {
  if (job.status === 'found' || job.status === 'ambiguous') return 100;
  const done = job.progress.steps_done;
  const left = job.progress.steps_left;
  if (left === null) return 0;
  return done + left === 0 ? 0 : (done / (done + left)) * 100;
}
