import { useSearchParams } from 'react-router-dom';

import { IncidentList } from '@/features/incidents/components/incident-list';
import { isIncidentStatus } from '@/features/incidents/labels';

/** The incident list; the status filter lives in the URL (`?status=open`) so it survives reloads and links. */
export function IncidentsRoute() {
  const [params, setParams] = useSearchParams();
  const raw = params.get('status');
  const status = isIncidentStatus(raw) ? raw : undefined;
  return (
    <IncidentList
      status={status}
      onStatusChange={(next) => {
        setParams(next ? { status: next } : {}, { replace: true });
      }}
    />
  );
}
