import { useQuery } from '@tanstack/react-query';
import { useEffect, useId, useMemo, useRef, useState } from 'react';
import { useLocation } from 'react-router-dom';

import { ErrorMessage } from '@/components/error-message';
import { Loading } from '@/components/loading';
import type { TimelineEvent } from '@/api/types';

import { byTime, eventQueryOptions, timelineEvents, timelineQueryOptions, useLoadEarlier } from '../api/timeline-api';
import {
  actorOf,
  eventAnchor,
  type EventGroup,
  groupEvents,
  groupTitle,
  matches,
  NO_FILTER,
  type TimelineFilter,
} from '../lib/group';
import { EventItem } from './event-item';
import { NoteForm } from './note-form';
import { TimelineFilters } from './timeline-filters';

function linkedEventId(hash: string): number | null {
  const match = /^#event-(\d+)$/.exec(hash);
  return match ? Number(match[1]) : null;
}

function GroupItem({ incidentId, group }: { incidentId: number; group: EventGroup }) {
  const [open, setOpen] = useState(false);
  const id = useId();
  const first = group.events[0];
  return (
    <li className={`event event--group${group.failed > 0 ? ' event--group-failed' : ''}`}>
      <button
        type="button"
        className="event__group-toggle"
        aria-expanded={open}
        aria-controls={`${id}-events`}
        onClick={() => {
          setOpen((o) => !o);
        }}
      >
        <span aria-hidden="true">{open ? '▾' : '▸'}</span> {groupTitle(group)}
        {first && <span className="muted"> · {String(group.events.length)} events</span>}
      </button>
      {open && (
        <ol className="events events--nested" id={`${id}-events`}>
          {group.events.map((event) => (
            <EventItem key={event.id} incidentId={incidentId} event={event} />
          ))}
        </ol>
      )}
    </li>
  );
}

/** The events people pinned as key evidence, above the log. */
function KeyEvidence({ incidentId, events }: { incidentId: number; events: TimelineEvent[] }) {
  const pinned = events.filter((e) => e.pinned);
  if (pinned.length === 0) return null;
  return (
    <div className="timeline__pinned">
      <h3>Key evidence</h3>
      <ol className="events">
        {pinned.map((event) => (
          <EventItem key={event.id} incidentId={incidentId} event={event} copy />
        ))}
      </ol>
    </div>
  );
}

/** A linked event that is older than the loaded pages: fetched on its own and shown above the log. */
function LinkedEvent({ incidentId, eventId }: { incidentId: number; eventId: number }) {
  const linked = useQuery(eventQueryOptions(incidentId, eventId));
  return (
    <div className="timeline__pinned">
      <h3>Linked event</h3>
      {linked.isPending && <Loading label="Loading the linked event…" />}
      {linked.isError && <ErrorMessage>Could not load the linked event: {linked.error.message}</ErrorMessage>}
      {linked.data && (
        <ol className="events">
          <EventItem incidentId={incidentId} event={linked.data} highlighted copy />
        </ol>
      )}
    </div>
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
  const [filter, setFilter] = useState<TimelineFilter>(NO_FILTER);
  const linkedId = linkedEventId(useLocation().hash);
  const linkedLoaded = linkedId !== null && events?.some((e) => e.id === linkedId) === true;
  const actors = useMemo(() => [...new Set((events ?? []).map(actorOf))].sort(), [events]);
  const items = useMemo(
    () =>
      groupEvents(
        (events ?? []).filter((e) => matches(e, filter)),
        (e) => e.pinned || e.id === linkedId,
      ),
    [events, filter, linkedId],
  );

  // A link to one event: bring it into view once it is there.
  const scrollTo = linkedLoaded ? linkedId : null;
  useEffect(() => {
    if (scrollTo === null) return;
    const target = document.getElementById(eventAnchor(scrollTo));
    // jsdom (the component tests) has no scrollIntoView; browsers do.
    if (target && 'scrollIntoView' in target) target.scrollIntoView({ block: 'center' });
  }, [scrollTo]);

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
      {events && <TimelineFilters filter={filter} actors={actors} onChange={setFilter} />}
      {events && <KeyEvidence incidentId={incidentId} events={events} />}
      {linkedId !== null && events && !linkedLoaded && <LinkedEvent incidentId={incidentId} eventId={linkedId} />}
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
          ) : items.length === 0 ? (
            <p className="muted">No event matches these filters.</p>
          ) : (
            <ol className="events">
              {items.map((item) =>
                item.type === 'group' ? (
                  <GroupItem key={item.key} incidentId={incidentId} group={item} />
                ) : (
                  <EventItem
                    key={item.event.id}
                    incidentId={incidentId}
                    event={item.event}
                    highlighted={item.event.id === linkedId}
                  />
                ),
              )}
            </ol>
          )}
        </div>
      )}
      <NoteForm incidentId={incidentId} />
    </section>
  );
}
