import { queryOptions, useMutation, useQueryClient } from '@tanstack/react-query';

import { api } from '@/api/client';
import { unwrap } from '@/api/errors';
import { incidentScopeKey } from '@/api/query-keys';
import type { NoteCreate, TimelineEvent, TimelinePage } from '@/api/types';

export const timelineKeys = {
  list: (incidentId: number) => [...incidentScopeKey(incidentId), 'timeline'] as const,
};

/**
 * The timeline is live by polling (decisions 0002 and 0011): every second the client asks for what came
 * after the server's `next` cursor, and asks again at once while the server says there is `more`. The
 * cursors are opaque: the server issues them and they never skip an event or repeat a page.
 */
export const TIMELINE_POLL_MS = 1000;
/** Pages fetched back to back in one poll before yielding (10 × 500 events: 5,000 events a second). */
export const MAX_PAGES_PER_POLL = 10;
/** A reader following the live end keeps this many events; older ones are one "Load earlier" away. */
export const MAX_LIVE_EVENTS = 2000;

/** A run of events as the server sent it, with the cursor for what comes before its first new event. */
export interface TimelineChunk {
  events: TimelineEvent[];
  earlier: string | null;
}

export interface TimelineState {
  chunks: TimelineChunk[];
  next: string;
  /** The reader loaded earlier pages: keep everything they have (no trimming) until they reload. */
  reading: boolean;
}

/** The server's order: created_at, then id. */
export function byTime(a: TimelineEvent, b: TimelineEvent): number {
  return a.created_at === b.created_at ? a.id - b.id : a.created_at < b.created_at ? -1 : 1;
}

/** Every event of the state once, oldest first (created_at, then id: the server's order). */
export function timelineEvents(state: TimelineState): TimelineEvent[] {
  const seen = new Set<number>();
  const events: TimelineEvent[] = [];
  for (const chunk of state.chunks) {
    for (const event of chunk.events) {
      if (seen.has(event.id)) continue;
      seen.add(event.id);
      events.push(event);
    }
  }
  return events.sort(byTime);
}

/** Appends a live page; drops the oldest chunks past MAX_LIVE_EVENTS unless the reader is reading back. */
export function appendPage(state: TimelineState, page: TimelinePage): TimelineState {
  if (page.events.length === 0) return page.next === state.next ? state : { ...state, next: page.next };
  const chunks = [...state.chunks, { events: page.events, earlier: page.earlier }];
  if (!state.reading) {
    let total = chunks.reduce((n, c) => n + c.events.length, 0);
    while (chunks.length > 1 && total > MAX_LIVE_EVENTS) {
      total -= chunks.shift()?.events.length ?? 0;
    }
  }
  return { ...state, chunks, next: page.next };
}

async function getPage(incidentId: number, query: { after?: string; before?: string }, signal?: AbortSignal) {
  return unwrap(
    await api.GET('/api/incidents/{incident_id}/timeline/', {
      params: { path: { incident_id: incidentId }, query },
      signal,
    }),
  );
}

export const timelineQueryOptions = (incidentId: number) =>
  queryOptions({
    queryKey: timelineKeys.list(incidentId),
    queryFn: async ({ client, signal }): Promise<TimelineState> => {
      const previous = client.getQueryData<TimelineState>(timelineKeys.list(incidentId));
      if (previous === undefined) {
        const newest = await getPage(incidentId, {}, signal);
        return { chunks: [{ events: newest.events, earlier: newest.earlier }], next: newest.next, reading: false };
      }
      const pages: TimelinePage[] = [];
      let next = previous.next;
      for (let i = 0; i < MAX_PAGES_PER_POLL; i += 1) {
        const page = await getPage(incidentId, { after: next }, signal);
        pages.push(page);
        next = page.next;
        if (!page.more) break;
      }
      // "Load earlier" may have put older events in front while these pages came: add to what is shown now, or
      // this poll's answer would drop them.
      const now = client.getQueryData<TimelineState>(timelineKeys.list(incidentId)) ?? previous;
      return pages.reduce(appendPage, now);
    },
    refetchInterval: TIMELINE_POLL_MS,
  });

/** "Load earlier": the page before the oldest event shown, put in front. */
export function useLoadEarlier(incidentId: number) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (before: string) => getPage(incidentId, { before }),
    onSuccess: (page) => {
      queryClient.setQueryData<TimelineState>(timelineKeys.list(incidentId), (state) =>
        state === undefined
          ? state
          : { ...state, reading: true, chunks: [{ events: page.events, earlier: page.earlier }, ...state.chunks] },
      );
    },
  });
}

export function useAddNote(incidentId: number) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (body: NoteCreate) =>
      unwrap(
        await api.POST('/api/incidents/{incident_id}/notes/', { params: { path: { incident_id: incidentId } }, body }),
      ),
    // Poll now rather than append: the note arrives through the cursor like everyone else's events.
    onSuccess: () => queryClient.invalidateQueries({ queryKey: timelineKeys.list(incidentId) }),
  });
}

/** One event by id, for a link to an event that is not among those loaded. */
export const eventQueryOptions = (incidentId: number, eventId: number) =>
  queryOptions({
    queryKey: [...timelineKeys.list(incidentId), 'event', eventId] as const,
    queryFn: async ({ signal }) =>
      unwrap(
        await api.GET('/api/incidents/{incident_id}/timeline/{event_id}/', {
          params: { path: { incident_id: incidentId, event_id: eventId } },
          signal,
        }),
      ),
  });

/** Pins an event as key evidence (or unpins it); the loaded timeline shows the change at once. */
export function usePinEvent(incidentId: number) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async ({ eventId, pinned }: { eventId: number; pinned: boolean }) =>
      unwrap(
        await api.PATCH('/api/incidents/{incident_id}/timeline/{event_id}/', {
          params: { path: { incident_id: incidentId, event_id: eventId } },
          body: { pinned },
        }),
      ),
    onSuccess: (event: TimelineEvent) => {
      queryClient.setQueryData<TimelineState>(timelineKeys.list(incidentId), (state) =>
        state === undefined
          ? state
          : {
              ...state,
              chunks: state.chunks.map((chunk) => ({
                ...chunk,
                events: chunk.events.map((e) => (e.id === event.id ? event : e)),
              })),
            },
      );
    },
  });
}
