import { queryOptions, useMutation, useQueryClient } from '@tanstack/react-query';

import { api } from '@/api/client';
import { unwrap } from '@/api/errors';
import { incidentScopeKey } from '@/api/query-keys';
import type { NoteCreate, TimelineEvent } from '@/api/types';

export const timelineKeys = {
  list: (incidentId: number) => [...incidentScopeKey(incidentId), 'timeline'] as const,
};

/**
 * The timeline is live by polling: every second the client asks only for the events after a cursor
 * just behind the last one it has (`?after=<id>`, see pollCursor), which is one cheap indexed query per viewer and works through any proxy
 * with plain session auth. SSE or websockets would need an async server and a pub/sub channel for a
 * 2-second freshness target that polling already meets. The lead records the decision in
 * docs/decisions/.
 */
export const TIMELINE_POLL_MS = 1000;

/**
 * An event's transaction can commit after one with a higher id was already read, so the cursor
 * trails the newest event by this much server time and merging drops the repeats.
 */
export const CURSOR_OVERLAP_MS = 10_000;

/** The `after=` cursor: the last event at least CURSOR_OVERLAP_MS older than the newest one. */
export function pollCursor(events: TimelineEvent[]): number | undefined {
  const newest = events.at(-1);
  if (newest === undefined) return undefined;
  const horizon = Date.parse(newest.created_at) - CURSOR_OVERLAP_MS;
  for (let i = events.length - 1; i >= 0; i -= 1) {
    const event = events[i];
    if (event !== undefined && Date.parse(event.created_at) <= horizon) return event.id;
  }
  return undefined;
}

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
      const after = previous === undefined ? undefined : pollCursor(previous);
      const fresh = unwrap(
        await api.GET('/api/incidents/{incident_id}/timeline/', {
          params: { path: { incident_id: incidentId }, query: after === undefined ? {} : { after } },
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
      unwrap(
        await api.POST('/api/incidents/{incident_id}/notes/', { params: { path: { incident_id: incidentId } }, body }),
      ),
    // Refetch rather than append: appending the note's id would make the next `after=` skip a
    // teammate's event committed just before it.
    onSuccess: () => queryClient.invalidateQueries({ queryKey: timelineKeys.list(incidentId) }),
  });
}
