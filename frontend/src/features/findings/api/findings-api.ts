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
