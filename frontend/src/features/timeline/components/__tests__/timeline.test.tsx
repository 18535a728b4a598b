import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';

import type { TimelineEvent } from '@/api/types';
import { json, mockApi, setCsrfCookie } from '@/testing/mock-api';
import { renderWithProviders } from '@/testing/render';

import { mergeEvents, pollCursor } from '../../api/timeline-api';
import { Timeline } from '../timeline';

function event(id: number, overrides: Partial<TimelineEvent> = {}): TimelineEvent {
  return {
    id,
    kind: 'note',
    actor: 'alice',
    created_at: '2024-05-01T10:00:00Z',
    summary: `event ${id}`,
    data: {},
    ...overrides,
  };
}

describe('Timeline', () => {
  it('merges new events in id order without duplicates', () => {
    const previous = [event(1), event(2)];
    expect(mergeEvents(previous, [])).toBe(previous);
    expect(mergeEvents(previous, [event(2), event(4), event(3)]).map((e) => e.id)).toEqual([1, 2, 3, 4]);
  });

  it('keeps its cursor behind the newest event so a late commit with a lower id is not skipped', () => {
    expect(pollCursor([])).toBeUndefined();
    expect(pollCursor([event(1)])).toBeUndefined();
    const second = event(2, { created_at: '2024-05-01T09:59:55Z' });
    const newest = event(5, { created_at: '2024-05-01T10:00:00Z' });
    const seen = [event(1, { created_at: '2024-05-01T09:00:00Z' }), second, newest];
    expect(pollCursor(seen)).toBe(1);
    const late = event(4, { created_at: '2024-05-01T09:59:58Z', summary: 'committed late' });
    expect(mergeEvents(seen, [second, late, newest]).map((e) => e.id)).toEqual([1, 2, 4, 5]);
  });

  it('polls for events after the last one and appends them, newest last', async () => {
    const onNewEvents = vi.fn();
    let pending: TimelineEvent[] = [];
    const { requests } = mockApi({
      'GET /api/incidents/9/timeline/': (request) =>
        json(
          request.search
            ? pending
            : [
                event(1, { kind: 'incident_opened', summary: 'Incident opened', created_at: '2024-05-01T09:00:00Z' }),
                ...pending,
              ],
        ),
    });
    renderWithProviders(<Timeline incidentId={9} onNewEvents={onNewEvents} />);

    const log = await screen.findByRole('log', { name: 'Timeline events' });
    expect(within(log).getByText('Incident opened')).toBeInTheDocument();

    pending = [event(2, { actor: 'bob', kind: 'verdict_changed', summary: 'Network: cleared' })];
    await waitFor(
      () => {
        expect(within(log).getByText('Network: cleared')).toBeInTheDocument();
      },
      { timeout: 2500 },
    );
    await waitFor(
      () => {
        expect(requests.some((r) => r.search === '?after=1')).toBe(true);
      },
      { timeout: 2500 },
    );
    const items = within(log).getAllByRole('listitem');
    expect(items.map((li) => within(li).getByText(/^(Incident opened|Network: cleared)$/).textContent)).toEqual([
      'Incident opened',
      'Network: cleared',
    ]);
    expect(items[1]).toHaveTextContent('bob');
    expect(onNewEvents).toHaveBeenCalledWith([expect.objectContaining({ id: 2 })]);
  });

  it('adds a note with Enter', async () => {
    const user = userEvent.setup();
    setCsrfCookie();
    const { requests } = mockApi({
      'GET /api/incidents/9/timeline/': () => json([]),
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
