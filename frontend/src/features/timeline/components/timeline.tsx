import { useQuery } from '@tanstack/react-query';
import { useEffect, useId, useMemo, useRef } from 'react';

import { ErrorMessage } from '@/components/error-message';
import { Loading } from '@/components/loading';
import type { TimelineEvent } from '@/api/types';
import { formatDateTime } from '@/lib/format';

import { byTime, timelineEvents, timelineQueryOptions, useLoadEarlier } from '../api/timeline-api';
import { EVENT_KIND_LABEL } from '../labels';
import { NoteForm } from './note-form';

const timeOfDay = new Intl.DateTimeFormat(undefined, { hour: '2-digit', minute: '2-digit', second: '2-digit' });

function EventItem({ event }: { event: TimelineEvent }) {
  return (
    <li className={`event event--${event.kind}`}>
      <div className="event__meta">
        <time dateTime={event.created_at} title={formatDateTime(event.created_at)}>
          {timeOfDay.format(new Date(event.created_at))}
        </time>
        <span className="event__actor">{event.actor ?? 'whodunnet'}</span>
        <span className="event__kind">{EVENT_KIND_LABEL[event.kind]}</span>
      </div>
      <p className="event__summary">{event.summary}</p>
    </li>
  );
}

interface TimelineProps {
  incidentId: number;
  /** Called with events that arrived after the first load (from anyone, including this user). */
  onNewEvents?: (events: TimelineEvent[]) => void;
}

/** What happened in the incident, oldest first and newest last, opening on the newest and updated live. */
export function Timeline({ incidentId, onNewEvents }: TimelineProps) {
  const timeline = useQuery(timelineQueryOptions(incidentId));
  const loadEarlier = useLoadEarlier(incidentId);
  const id = useId();
  const seen = useRef<{ ids: Set<number>; first: TimelineEvent } | null>(null);
  const listRef = useRef<HTMLDivElement>(null);
  const state = timeline.data;
  const events = useMemo(() => (state ? timelineEvents(state) : undefined), [state]);
  const earlier = state?.chunks[0]?.earlier ?? null;

  useEffect(() => {
    const first = events?.[0];
    if (!events || first === undefined) return;
    const previous = seen.current;
    seen.current = { ids: new Set(events.map((e) => e.id)), first };
    if (previous === null) {
      // First load: show the newest event.
      if (listRef.current) listRef.current.scrollTop = listRef.current.scrollHeight;
      return;
    }
    // New: not shown before, and not one of the older events "Load earlier" brought in.
    const fresh = events.filter((e) => !previous.ids.has(e.id) && byTime(e, previous.first) > 0);
    if (fresh.length > 0) onNewEvents?.(fresh);
    if (fresh.length === 0) return;
    // Keep the newest event in view unless the reader has scrolled up to read older ones.
    const box = listRef.current;
    if (box && box.scrollHeight - box.scrollTop - box.clientHeight < 120) {
      box.scrollTop = box.scrollHeight;
    }
  }, [events, onNewEvents]);

  return (
    <section className="section timeline" aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>Timeline</h2>
      {timeline.isPending && <Loading label="Loading timeline…" />}
      {timeline.isError && <ErrorMessage>Could not load the timeline: {timeline.error.message}</ErrorMessage>}
      {events && (
        <div className="timeline__log" role="log" aria-label="Timeline events" ref={listRef} tabIndex={0}>
          {earlier !== null && (
            <button
              type="button"
              className="button timeline__earlier"
              disabled={loadEarlier.isPending}
              onClick={() => {
                loadEarlier.mutate(earlier);
              }}
            >
              {loadEarlier.isPending ? 'Loading earlier…' : 'Load earlier'}
            </button>
          )}
          {loadEarlier.isError && (
            <ErrorMessage>Could not load earlier events: {loadEarlier.error.message}</ErrorMessage>
          )}
          {events.length === 0 ? (
            <p className="muted">Nothing yet.</p>
          ) : (
            <ol className="events">
              {events.map((event) => (
                <EventItem key={event.id} event={event} />
              ))}
            </ol>
          )}
        </div>
      )}
      <NoteForm incidentId={incidentId} />
    </section>
  );
}
