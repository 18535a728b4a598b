import { keepPreviousData, queryOptions } from '@tanstack/react-query';

import { api } from '@/api/client';
import { unwrap } from '@/api/errors';
import { incidentScopeKey } from '@/api/query-keys';

/** Packets per page of the packet list. */
export const PACKETS_PAGE_SIZE = 100;

export interface PacketQuery {
  start: number;
  timeFrom?: number | undefined;
  timeTo?: number | undefined;
}

export const packetKeys = {
  page: (incidentId: number, evidenceId: number, connId: number, query: PacketQuery) =>
    [...incidentScopeKey(incidentId), 'evidence', evidenceId, 'connections', connId, 'packets', query] as const,
};

function rangeQuery(query: PacketQuery) {
  return {
    ...(query.timeFrom !== undefined && { time_from: query.timeFrom }),
    ...(query.timeTo !== undefined && { time_to: query.timeTo }),
  };
}

export const packetPageQueryOptions = (incidentId: number, evidenceId: number, connId: number, query: PacketQuery) =>
  queryOptions({
    queryKey: packetKeys.page(incidentId, evidenceId, connId, query),
    queryFn: async ({ signal }) =>
      unwrap(
        await api.GET('/api/incidents/{incident_id}/evidence/{evidence_id}/connections/{conn_id}/packets/', {
          params: {
            path: { incident_id: incidentId, evidence_id: evidenceId, conn_id: connId },
            query: { start: query.start, limit: PACKETS_PAGE_SIZE, ...rangeQuery(query) },
          },
          signal,
        }),
      ),
    placeholderData: keepPreviousData,
    // Read from the capture: it only changes when the file is analysed again.
    staleTime: Infinity,
  });

/** The "download these packets" link: the whole range (not just the page) as a pcap file. */
export function packetsPcapUrl(incidentId: number, evidenceId: number, connId: number, query: PacketQuery): string {
  const params = new URLSearchParams({ start: String(query.start) });
  for (const [k, v] of Object.entries(rangeQuery(query))) params.set(k, String(v));
  return `/api/incidents/${incidentId}/evidence/${evidenceId}/connections/${connId}/packets.pcap?${params.toString()}`;
}
