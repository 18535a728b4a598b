import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it } from 'vitest';

import type { Incident } from '@/api/types';
import { json, mockApi, setCsrfCookie } from '@/testing/mock-api';
import { renderWithProviders } from '@/testing/render';

import { IncidentHeader } from '../incident-header';

const INCIDENT: Incident = {
  id: 5,
  team: { id: 1, name: 'Edge', slug: 'edge' },
  title: 'Kafka consumers slow after the kernel upgrade',
  symptom: 'Lag grows on every consumer.',
  severity: 'sev2',
  status: 'open',
  owner: null,
  members: ['olive', 'tom'],
  impact_started_at: null,
  impact_ended_at: null,
  started_at: '2026-03-01T10:00:00Z',
  created_at: '2026-03-01T10:05:00Z',
  created_by: 'olive',
  evidence_count: 0,
  viewer_role: 'member',
  verdicts: [],
};

describe('IncidentHeader', () => {
  beforeEach(() => {
    setCsrfCookie();
  });

  it('shows the status in plain words and lets the team pick an owner and state the impact window', async () => {
    const user = userEvent.setup();
    const { requests } = mockApi({
      'PATCH /api/incidents/5/': (request) => json({ ...INCIDENT, ...(request.body as object) }),
    });
    renderWithProviders(<IncidentHeader incident={INCIDENT} />);
    expect(screen.getByLabelText('Status')).toHaveDisplayValue('Investigating');
    expect(screen.getByLabelText('Owner')).toHaveDisplayValue('Nobody yet');
    expect(screen.getByText('not stated')).toBeInTheDocument();
    expect(screen.queryByText(/#5/)).not.toBeInTheDocument();

    await user.selectOptions(screen.getByLabelText('Owner'), 'tom');
    await waitFor(() => {
      expect(requests.at(-1)?.body).toEqual({ owner: 'tom' });
    });

    expect(screen.queryByRole('button', { name: 'Save impact window' })).not.toBeInTheDocument();
    await user.type(screen.getByLabelText('Impact started'), '2026-03-01T10:04');
    expect(screen.getByText('still going on')).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Save impact window' }));
    await waitFor(() => {
      expect(requests.at(-1)?.body).toEqual({
        impact_started_at: new Date('2026-03-01T10:04').toISOString(),
        impact_ended_at: null,
      });
    });
  });
});
