import { queryOptions, useMutation, useQueryClient } from '@tanstack/react-query';

import { api } from '@/api/client';
import { unwrap } from '@/api/errors';
import { incidentScopeKey } from '@/api/query-keys';
import type { Bisect, BisectCreate, BisectSummary } from '@/api/types';

export const bisectKeys = {
  all: (incidentId: number) => [...incidentScopeKey(incidentId), 'bisects'] as const,
  list: (incidentId: number) => [...bisectKeys.all(incidentId), 'list'] as const,
  detail: (incidentId: number, bisectId: number) => [...bisectKeys.all(incidentId), 'detail', bisectId] as const,
};

/** How often a job that can still change is polled (its row is the truth about the background work). */
export const BISECT_POLL_MS = 1000;

/** Queued or running: the job can still change. The API says so itself (`finished`). */
export function isBisectActive(job: Pick<BisectSummary, 'finished'>): boolean {
  return !job.finished;
}

export const bisectListQueryOptions = (incidentId: number) =>
  queryOptions({
    queryKey: bisectKeys.list(incidentId),
    queryFn: async ({ signal }) =>
      unwrap(
        await api.GET('/api/incidents/{incident_id}/bisects/', {
          params: { path: { incident_id: incidentId } },
          signal,
        }),
      ),
    refetchInterval: (query) => (query.state.data?.some(isBisectActive) ? BISECT_POLL_MS : false),
  });

export const bisectQueryOptions = (incidentId: number, bisectId: number) =>
  queryOptions({
    queryKey: bisectKeys.detail(incidentId, bisectId),
    queryFn: async ({ signal }) =>
      unwrap(
        await api.GET('/api/incidents/{incident_id}/bisects/{bisect_id}/', {
          params: { path: { incident_id: incidentId, bisect_id: bisectId } },
          signal,
        }),
      ),
    // Poll until the job reaches a terminal state; a retried step makes it active again, and the
    // retry mutation refreshes the detail, which restarts the polling.
    refetchInterval: (query) => (query.state.data && !isBisectActive(query.state.data) ? false : BISECT_POLL_MS),
  });

export function useStartBisect(incidentId: number) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (body: BisectCreate) =>
      unwrap(
        await api.POST('/api/incidents/{incident_id}/bisects/', {
          params: { path: { incident_id: incidentId } },
          body,
        }),
      ),
    onSuccess: async (job) => {
      queryClient.setQueryData(bisectKeys.detail(incidentId, job.id), job);
      await queryClient.invalidateQueries({ queryKey: bisectKeys.list(incidentId) });
    },
  });
}

/** After a change to one job: store the new detail, refresh it and the list. */
async function refreshJob(queryClient: ReturnType<typeof useQueryClient>, incidentId: number, job?: Bisect) {
  if (job) queryClient.setQueryData(bisectKeys.detail(incidentId, job.id), job);
  await queryClient.invalidateQueries({ queryKey: bisectKeys.all(incidentId) });
}

export function useCancelBisect(incidentId: number, bisectId: number) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async () =>
      unwrap(
        await api.POST('/api/incidents/{incident_id}/bisects/{bisect_id}/cancel/', {
          params: { path: { incident_id: incidentId, bisect_id: bisectId } },
        }),
      ),
    onSuccess: (job) => refreshJob(queryClient, incidentId, job),
  });
}

export function useRetryStep(incidentId: number, bisectId: number) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (stepId: number) =>
      unwrap(
        await api.POST('/api/incidents/{incident_id}/bisects/{bisect_id}/steps/{step_id}/retry/', {
          params: { path: { incident_id: incidentId, bisect_id: bisectId, step_id: stepId } },
        }),
      ),
    onSuccess: () => refreshJob(queryClient, incidentId),
  });
}
