import { queryOptions, useMutation, useQueryClient } from '@tanstack/react-query';

import { api } from '@/api/client';
import { unwrap } from '@/api/errors';
import { incidentScopeKey } from '@/api/query-keys';
import type { NoteCreate, TimelineEvent } from '@/api/types';

export const timelineKeys = {
  list: (incidentId: number) => [...incidentScopeKey(incidentId), 'timeline'] as const,
};

/**
 * The timeline is live by polling: every second the client asks only for the events after the last
 * one it has (`?after=<id>`), which is one cheap indexed query per viewer and works through any proxy
 * with plain session auth. SSE or websockets would need an async server and a pub/sub channel for a
 * 2-second freshness target that polling already meets. The lead records the decision in
 * docs/decisions/.
 */
export const TIMELINE_POLL_MS = 1000;

/** Appends events not seen yet, keeping id order; returns `previous` itself when nothing is new. */
export function mergeEvents(previous: TimelineEvent[], fresh: TimelineEvent[]): TimelineEvent[] {
  const seen = new Set(previous.map((e) => e.id));
  const added = fresh.filter((e) => !seen.has(e.id));
  if (added.length === 0) return previous;
  return [...previous, ...added].sort((a, b) => a.id - b.id);
}

export const timelineQueryOptions = (incidentId: number) =>
  queryOptions({
    queryKey: timelineKeys.list(incidentId),
    queryFn: async ({ client, signal }) => {
      const previous = client.getQueryData<TimelineEvent[]>(timelineKeys.list(incidentId));
      const after = previous?.at(-1)?.id;
      const fresh = unwrap(
        await api.GET('/api/incidents/{id}/timeline/', {
          params: { path: { id: incidentId }, query: after === undefined ? {} : { after } },
          signal,
        }),
      );
      return previous ? mergeEvents(previous, fresh) : fresh;
    },
    refetchInterval: TIMELINE_POLL_MS,
  });

export function useAddNote(incidentId: number) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (body: NoteCreate) =>
      unwrap(await api.POST('/api/incidents/{id}/notes/', { params: { path: { id: incidentId } }, body })),
    // Refetch rather than append: appending the note's id would make the next `after=` skip a
    // teammate's event committed just before it.
    onSuccess: () => queryClient.invalidateQueries({ queryKey: timelineKeys.list(incidentId) }),
  });
}
