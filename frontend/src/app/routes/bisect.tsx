import { useQuery } from '@tanstack/react-query';
import { Link, useParams } from 'react-router-dom';

import { NotFound } from '@/components/not-found';
import { BisectJob } from '@/features/bisects/components/bisect-job';
import { incidentQueryOptions } from '@/features/incidents/api/incidents-api';

function positiveInt(value: string | undefined): number | undefined {
  const n = Number(value);
  return Number.isInteger(n) && n > 0 ? n : undefined;
}

/** `/incidents/:incidentId/bisects/:bisectId`: one bisect job, live, under a link back to its incident. */
export function BisectRoute() {
  const params = useParams();
  const incidentId = positiveInt(params.incidentId);
  const bisectId = positiveInt(params.bisectId);
  const incident = useQuery({ ...incidentQueryOptions(incidentId ?? 0), enabled: incidentId !== undefined });
  if (incidentId === undefined || bisectId === undefined) return <NotFound what="Bisect" />;
  return (
    <div className="bisect-page">
      <nav aria-label="Breadcrumb" className="breadcrumb small">
        <Link to={`/incidents/${incidentId}`}>← {incident.data?.title ?? `Incident #${incidentId}`}</Link>
      </nav>
      {/* Keyed so that moving between jobs starts each page fresh (an open confirmation). */}
      <BisectJob
        key={bisectId}
        incidentId={incidentId}
        bisectId={bisectId}
        canRetry={incident.data?.viewer_role === 'owner'}
      />
    </div>
  );
}
