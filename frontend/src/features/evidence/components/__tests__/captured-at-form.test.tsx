import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';

import { makeEvidence } from '@/testing/fixtures';
import { json, mockApi, setCsrfCookie } from '@/testing/mock-api';
import { renderWithProviders } from '@/testing/render';

import { CapturedAtForm } from '../captured-at-form';

describe('CapturedAtForm', () => {
  it('sends the time the snapshot was taken as an ISO instant', async () => {
    const user = userEvent.setup();
    setCsrfCookie();
    const evidence = makeEvidence({ id: 21, kind: 'counters' });
    const { requests } = mockApi({
      'PATCH /api/incidents/3/evidence/21/': () => json({ ...evidence, provenance: { ...evidence.provenance, taken_at: { value: '2026-11-20T10:00:30.000Z', source: 'user' } } }),
    });
    renderWithProviders(<CapturedAtForm evidence={evidence} incidentId={3} />);
    const input = screen.getByLabelText('Snapshot taken at');
    await user.type(input, '2026-11-20T10:00:30');
    await user.click(screen.getByRole('button', { name: 'Save time' }));
    await waitFor(() => {
      expect(requests.some((r) => r.method === 'PATCH')).toBe(true);
    });
    const sent = requests.find((r) => r.method === 'PATCH');
    expect(sent?.body).toEqual({ taken_at: new Date('2026-11-20T10:00:30').toISOString() });
  });
});
