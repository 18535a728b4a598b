import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { QueryClient } from '@tanstack/react-query';
import { describe, expect, it, vi } from 'vitest';

import type { TimelineEvent, TimelinePage } from '@/api/types';
import { json, mockApi, setCsrfCookie } from '@/testing/mock-api';
import { renderWithProviders } from '@/testing/render';

import {
  appendPage,
  MAX_LIVE_EVENTS,
  timelineEvents,
  timelineKeys,
  timelineQueryOptions,
  type TimelineState,
} from '../../api/timeline-api';
import { Timeline } from '../timeline';

function event(id: number, overrides: Partial<TimelineEvent> = {}): TimelineEvent {
  return {
    id,
    kind: 'note',
    actor: 'alice',
    created_at: '2024-05-01T10:00:00Z',
    summary: `event ${id}`,
    data: {},
    pinned: false,
    ...overrides,
  };
}

function events(from: number, to: number): TimelineEvent[] {
  return Array.from({ length: to - from + 1 }, (_, i) => event(from + i));
}

function page(body: Partial<TimelinePage>): TimelinePage {
  return { events: [], next: 'n0', earlier: null, more: false, ...body };
}

describe('timeline state', () => {
  it('lists events once, in created_at then id order, whatever order the pages came in', () => {
    const state: TimelineState = {
      chunks: [
        { events: [event(2), event(3)], earlier: 'e1' },
        // A late commit: a transaction that started first, read after event 3.
        { events: [event(1, { created_at: '2024-05-01T09:59:59Z' }), event(3), event(4)], earlier: 'e3' },
      ],
      next: 'n',
      reading: false,
    };
    expect(timelineEvents(state).map((e) => e.id)).toEqual([1, 2, 3, 4]);
  });

  it('keeps a reader following the live end to the newest events, in whole pages', () => {
    let state: TimelineState = { chunks: [{ events: events(1, 500), earlier: 'e0' }], next: 'n0', reading: false };
    for (let p = 1; p <= 6; p += 1) {
      state = appendPage(state, page({ events: events(p * 500 + 1, p * 500 + 500), earlier: `e${p}`, next: `n${p}` }));
    }
    const shown = timelineEvents(state);
    expect(shown.length).toBeLessThanOrEqual(MAX_LIVE_EVENTS);
    expect(shown.at(-1)?.id).toBe(3500);
    // The first kept page's own cursor: "Load earlier" goes on from exactly there.
    expect(state.chunks[0]?.earlier).toBe(`e${7 - state.chunks.length}`);
    expect(state.next).toBe('n6');
  });

  it('keeps everything while the reader is reading back', () => {
    let state: TimelineState = { chunks: [{ events: events(1, 500), earlier: 'e0' }], next: 'n0', reading: true };
    for (let p = 1; p <= 6; p += 1) state = appendPage(state, page({ events: events(p * 500 + 1, p * 500 + 500) }));
    expect(timelineEvents(state)).toHaveLength(3500);
  });
});

describe('timeline polling', () => {
  it('keeps the earlier events "Load earlier" brought in while a poll was on its way', async () => {
    const client = new QueryClient();
    const key = timelineKeys.list(9);
    client.setQueryData<TimelineState>(key, {
      chunks: [{ events: events(501, 502), earlier: 'e0' }],
      next: 'n1',
      reading: false,
    });
    mockApi({
      'GET /api/incidents/9/timeline/': () => {
        // "Load earlier" lands while the poll's request is out.
        client.setQueryData<TimelineState>(
          key,
          (state) =>
            state && {
              ...state,
              reading: true,
              chunks: [{ events: [event(1, { summary: 'Incident opened' })], earlier: null }, ...state.chunks],
            },
        );
        return json(page({ events: [event(503)], earlier: 'e1', next: 'n2' }));
      },
    });
    const state = await client.query({ ...timelineQueryOptions(9), staleTime: 0 });
    expect(timelineEvents(state).map((e) => e.id)).toEqual([1, 501, 502, 503]);
    expect(state.next).toBe('n2');
  });
});

describe('Timeline', () => {
  it('opens on the newest events, loads earlier ones in front, and appends what the cursor brings', async () => {
    const user = userEvent.setup();
    const onNewEvents = vi.fn();
    let live: TimelinePage[] = [];
    const { requests } = mockApi({
      'GET /api/incidents/9/timeline/': (request) => {
        const query = new URLSearchParams(request.search);
        if (query.get('before') === 'e-newest')
          return json(page({ events: [event(1, { summary: 'Incident opened' })] }));
        if (query.get('after')) return json(live.shift() ?? page({ next: query.get('after') ?? '' }));
        return json(page({ events: [event(501), event(502)], earlier: 'e-newest', next: 'n1' }));
      },
    });
    renderWithProviders(<Timeline incidentId={9} onNewEvents={onNewEvents} />);

    const log = await screen.findByRole('log', { name: 'Timeline events' });
    expect(within(log).getByText('event 502')).toBeInTheDocument();
    expect(within(log).queryByText('Incident opened')).not.toBeInTheDocument();

    await user.click(within(log).getByRole('button', { name: 'Load earlier' }));
    expect(await within(log).findByText('Incident opened')).toBeInTheDocument();
    expect(within(log).queryByRole('button', { name: 'Load earlier' })).not.toBeInTheDocument();

    // Two pages waiting at once (more: true): both arrive in the same poll.
    live = [
      page({ events: [event(503, { actor: 'bob', summary: 'Network: cleared' })], next: 'n2', more: true }),
      page({ events: [event(504, { summary: 'second page' })], next: 'n3' }),
    ];
    await waitFor(
      () => {
        expect(within(log).getByText('second page')).toBeInTheDocument();
      },
      { timeout: 2500 },
    );
    const afters = requests.map((r) => new URLSearchParams(r.search).get('after')).filter(Boolean);
    // A poll may come before the pages are waiting (a slow machine): it asks again from n1, which is right too.
    const distinct = afters.filter((after, i) => after !== afters[i - 1]);
    expect(distinct.slice(0, 2)).toEqual(['n1', 'n2']);
    const items = within(log).getAllByRole('listitem');
    expect(items.map((li) => li.querySelector('.event__summary')?.textContent)).toEqual([
      'Incident opened',
      'event 501',
      'event 502',
      'Network: cleared',
      'second page',
    ]);
    expect(onNewEvents).toHaveBeenCalledWith([
      expect.objectContaining({ id: 503 }),
      expect.objectContaining({ id: 504 }),
    ]);
    expect(onNewEvents).not.toHaveBeenCalledWith([expect.objectContaining({ id: 1 })]);
  });

  it('adds a note with Enter', async () => {
    const user = userEvent.setup();
    setCsrfCookie();
    const { requests } = mockApi({
      'GET /api/incidents/9/timeline/': () => json(page({})),
      'POST /api/incidents/9/notes/': () => json(event(5, { summary: 'Checked the LB' }), 201),
    });
    renderWithProviders(<Timeline incidentId={9} />);

    await user.type(await screen.findByLabelText('Add note'), 'Checked the LB{Enter}');
    await waitFor(() => {
      expect(requests.find((r) => r.method === 'POST')?.body).toEqual({ text: 'Checked the LB' });
    });
    await waitFor(() => {
      expect(screen.getByLabelText('Add note')).toHaveValue('');
    });
  });
});
