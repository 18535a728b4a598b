import { queryOptions, useMutation, useQueryClient } from '@tanstack/react-query';

import { api } from '@/api/client';
import { unwrap } from '@/api/errors';
import { incidentScopeKey } from '@/api/query-keys';
import type { IncidentCreate, IncidentStatus, IncidentUpdate } from '@/api/types';

export const incidentKeys = {
  all: ['incidents'] as const,
  lists: () => ['incidents', 'list'] as const,
  list: (status: IncidentStatus | undefined) => ['incidents', 'list', { status: status ?? 'all' }] as const,
  detail: (id: number) => [...incidentScopeKey(id), 'incident'] as const,
  teams: ['teams'] as const,
};

export const incidentsQueryOptions = (status?: IncidentStatus) =>
  queryOptions({
    queryKey: incidentKeys.list(status),
    queryFn: async ({ signal }) =>
      unwrap(await api.GET('/api/incidents/', { params: { query: status ? { status } : {} }, signal })),
  });

export const incidentQueryOptions = (id: number) =>
  queryOptions({
    queryKey: incidentKeys.detail(id),
    queryFn: async ({ signal }) =>
      unwrap(await api.GET('/api/incidents/{incident_id}/', { params: { path: { incident_id: id } }, signal })),
  });

export const teamsQueryOptions = () =>
  queryOptions({
    queryKey: incidentKeys.teams,
    queryFn: async ({ signal }) => unwrap(await api.GET('/api/teams/', { signal })),
    staleTime: 5 * 60_000,
  });

export function useCreateIncident() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (body: IncidentCreate) => unwrap(await api.POST('/api/incidents/', { body })),
    onSuccess: async (incident) => {
      queryClient.setQueryData(incidentKeys.detail(incident.id), incident);
      await queryClient.invalidateQueries({ queryKey: incidentKeys.lists() });
    },
  });
}

export function useUpdateIncident(id: number) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (body: IncidentUpdate) =>
      unwrap(await api.PATCH('/api/incidents/{incident_id}/', { params: { path: { incident_id: id } }, body })),
    onSuccess: async (incident) => {
      queryClient.setQueryData(incidentKeys.detail(id), incident);
      await Promise.all([
        queryClient.invalidateQueries({ queryKey: incidentKeys.lists() }),
        queryClient.invalidateQueries({ queryKey: incidentKeys.detail(id) }),
      ]);
    },
  });
}
