import { keepPreviousData, queryOptions } from '@tanstack/react-query';

import { api } from '@/api/client';
import { unwrap } from '@/api/errors';
import { incidentScopeKey } from '@/api/query-keys';
import type { ConnectionListQuery, TimeSequenceSender } from '@/api/types';

const scope = (incidentId: number, evidenceId: number) =>
  [...incidentScopeKey(incidentId), 'evidence', evidenceId, 'connections'] as const;

export const connectionKeys = {
  all: scope,
  list: (incidentId: number, evidenceId: number, query: ConnectionListQuery) =>
    [...scope(incidentId, evidenceId), 'list', query] as const,
  detail: (incidentId: number, evidenceId: number, connId: number) =>
    [...scope(incidentId, evidenceId), 'detail', connId] as const,
  timeSequence: (incidentId: number, evidenceId: number, connId: number, sender: TimeSequenceSender) =>
    [...scope(incidentId, evidenceId), 'detail', connId, 'time-sequence', sender] as const,
};

/** Rows per page of the connection table. */
export const CONNECTIONS_PAGE_SIZE = 50;

/** The graph asks for at most this many points; the server keeps every retransmission. */
export const TIME_SEQUENCE_MAX_POINTS = 100_000;

export const connectionListQueryOptions = (incidentId: number, evidenceId: number, query: ConnectionListQuery) =>
  queryOptions({
    queryKey: connectionKeys.list(incidentId, evidenceId, query),
    queryFn: async ({ signal }) =>
      unwrap(
        await api.GET('/api/incidents/{incident_id}/evidence/{evidence_id}/connections/', {
          params: { path: { incident_id: incidentId, evidence_id: evidenceId }, query },
          signal,
        }),
      ),
    // Keep the current page on screen while the next sort, filter or page loads.
    placeholderData: keepPreviousData,
  });

export const connectionQueryOptions = (incidentId: number, evidenceId: number, connId: number) =>
  queryOptions({
    queryKey: connectionKeys.detail(incidentId, evidenceId, connId),
    queryFn: async ({ signal }) =>
      unwrap(
        await api.GET('/api/incidents/{incident_id}/evidence/{evidence_id}/connections/{conn_id}/', {
          params: { path: { incident_id: incidentId, evidence_id: evidenceId, conn_id: connId } },
          signal,
        }),
      ),
  });

export const timeSequenceQueryOptions = (
  incidentId: number,
  evidenceId: number,
  connId: number,
  sender: TimeSequenceSender,
) =>
  queryOptions({
    queryKey: connectionKeys.timeSequence(incidentId, evidenceId, connId, sender),
    queryFn: async ({ signal }) =>
      unwrap(
        await api.GET('/api/incidents/{incident_id}/evidence/{evidence_id}/connections/{conn_id}/time-sequence/', {
          params: {
            path: { incident_id: incidentId, evidence_id: evidenceId, conn_id: connId },
            query: { sender, max_points: TIME_SEQUENCE_MAX_POINTS },
          },
          signal,
        }),
      ),
    // The server re-reads the capture for this: it only changes when the file is analysed again.
    staleTime: Infinity,
  });
