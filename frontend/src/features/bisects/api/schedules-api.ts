import { queryOptions, useMutation, useQueryClient } from '@tanstack/react-query';

import { api } from '@/api/client';
import { expectOk, unwrap } from '@/api/errors';
import { incidentScopeKey } from '@/api/query-keys';
import type { ScheduleCreate, ScheduleUpdate } from '@/api/types';

export const scheduleKeys = {
  list: (incidentId: number) => [...incidentScopeKey(incidentId), 'bisect-schedules'] as const,
};

export const scheduleListQueryOptions = (incidentId: number) =>
  queryOptions({
    queryKey: scheduleKeys.list(incidentId),
    queryFn: async ({ signal }) =>
      unwrap(
        await api.GET('/api/incidents/{incident_id}/bisect-schedules/', {
          params: { path: { incident_id: incidentId } },
          signal,
        }),
      ),
  });

export function useCreateSchedule(incidentId: number) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (body: ScheduleCreate) =>
      unwrap(
        await api.POST('/api/incidents/{incident_id}/bisect-schedules/', {
          params: { path: { incident_id: incidentId } },
          body,
        }),
      ),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: scheduleKeys.list(incidentId) }),
  });
}

export function useUpdateSchedule(incidentId: number) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async ({ scheduleId, changes }: { scheduleId: number; changes: ScheduleUpdate }) =>
      unwrap(
        await api.PATCH('/api/incidents/{incident_id}/bisect-schedules/{schedule_id}/', {
          params: { path: { incident_id: incidentId, schedule_id: scheduleId } },
          body: changes,
        }),
      ),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: scheduleKeys.list(incidentId) }),
  });
}

export function useDeleteSchedule(incidentId: number) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (scheduleId: number) => {
      expectOk(
        await api.DELETE('/api/incidents/{incident_id}/bisect-schedules/{schedule_id}/', {
          params: { path: { incident_id: incidentId, schedule_id: scheduleId } },
        }),
      );
    },
    onSuccess: () => queryClient.invalidateQueries({ queryKey: scheduleKeys.list(incidentId) }),
  });
}
