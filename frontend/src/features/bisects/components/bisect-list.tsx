import { Link } from 'react-router-dom';

import type { BisectSummary } from '@/api/types';

import { bisectPath, shortCommit } from '../lib/paths';
import { BisectStatusBadge } from './bisect-status-badge';

/** The incident's bisect jobs, newest first: where each stands and, once found, its first bad commit. */
export function BisectList({ incidentId, jobs }: { incidentId: number; jobs: BisectSummary[] }) {
  return (
    <table className="table bisect-table" aria-label="Bisect jobs">
      <thead>
        <tr>
          <th scope="col">Job</th>
          <th scope="col">Status</th>
          <th scope="col">Range</th>
          <th scope="col">Steps</th>
          <th scope="col">First bad commit</th>
        </tr>
      </thead>
      <tbody>
        {jobs.map((job) => (
          <tr key={job.id}>
            <td>
              <Link to={bisectPath(incidentId, job.id)}>Bisect #{job.id}</Link>
            </td>
            <td>
              <BisectStatusBadge status={job.status} />
            </td>
            <td className="mono">
              {job.good}..{job.bad}
              {job.path && <span className="muted"> — {job.path}</span>}
            </td>
            <td className="num">
              {job.progress.steps_done}
              {!job.finished && job.progress.steps_left !== null && (
                <span className="muted"> (~{job.progress.steps_left} left)</span>
              )}
            </td>
            <td>
              {job.first_bad ? (
                <>
                  <span className="mono">{shortCommit(job.first_bad.id)}</span> {job.first_bad.title}
                </>
              ) : (
                <span className="muted">—</span>
              )}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
