import { queryOptions } from '@tanstack/react-query';

import { api } from '@/api/client';
import { unwrap } from '@/api/errors';
import { incidentScopeKey } from '@/api/query-keys';

export const findingKeys = {
  list: (incidentId: number) => [...incidentScopeKey(incidentId), 'findings'] as const,
};

export const findingsQueryOptions = (incidentId: number) =>
  queryOptions({
    queryKey: findingKeys.list(incidentId),
    queryFn: async ({ signal }) =>
      unwrap(
        await api.GET('/api/incidents/{incident_id}/findings/', {
          params: { path: { incident_id: incidentId } },
          signal,
        }),
      ),
  });

export const evidenceLinesKeys = {
  range: (incidentId: number, evidenceId: number, start: number, end: number) =>
    [...incidentScopeKey(incidentId), 'evidence', evidenceId, 'lines', start, end] as const,
};

/** Lines `start`..`end` (1-based, inclusive) of a text evidence file, as JSON. */
export const evidenceLinesQueryOptions = (incidentId: number, evidenceId: number, start: number, end: number) =>
  queryOptions({
    queryKey: evidenceLinesKeys.range(incidentId, evidenceId, start, end),
    queryFn: async ({ signal }) =>
      unwrap(
        await api.GET('/api/incidents/{incident_id}/evidence/{evidence_id}/lines/', {
          params: { path: { incident_id: incidentId, evidence_id: evidenceId }, query: { start, end } },
          signal,
        }),
      ),
    // A stored file never changes.
    staleTime: Infinity,
  });
