import { queryOptions, useMutation, useQueryClient } from '@tanstack/react-query';

import { api } from '@/api/client';
import { unwrap } from '@/api/errors';
import { incidentScopeKey } from '@/api/query-keys';
import type { ChecklistStep, Layer, Verdict } from '@/api/types';

export const checklistKeys = {
  list: (incidentId: number) => [...incidentScopeKey(incidentId), 'checklist'] as const,
};

export const checklistQueryOptions = (incidentId: number) =>
  queryOptions({
    queryKey: checklistKeys.list(incidentId),
    queryFn: async ({ signal }) =>
      unwrap(
        await api.GET('/api/incidents/{incident_id}/checklist/', {
          params: { path: { incident_id: incidentId } },
          signal,
        }),
      ),
  });

export interface VerdictChange {
  layer: Layer;
  verdict: Verdict;
  rationale: string;
}

export function useUpdateVerdict(incidentId: number) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async ({ layer, verdict, rationale }: VerdictChange) =>
      unwrap(
        await api.PATCH('/api/incidents/{incident_id}/checklist/{layer}/', {
          params: { path: { incident_id: incidentId, layer } },
          body: { verdict, rationale },
        }),
      ),
    onSuccess: async (step) => {
      queryClient.setQueryData(checklistKeys.list(incidentId), (steps: ChecklistStep[] | undefined) =>
        steps?.map((s) => (s.layer === step.layer ? step : s)),
      );
      await queryClient.invalidateQueries({ queryKey: checklistKeys.list(incidentId) });
    },
  });
}
