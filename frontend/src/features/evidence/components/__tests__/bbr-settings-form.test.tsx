import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';

import { makeEvidence } from '@/testing/fixtures';
import { json, mockApi, setCsrfCookie } from '@/testing/mock-api';
import { renderWithProviders } from '@/testing/render';

import { BbrSettingsForm } from '../bbr-settings-form';

describe('BbrSettingsForm', () => {
  it('shows the current settings as percentages and sends shares back', async () => {
    const user = userEvent.setup();
    setCsrfCookie();
    const evidence = makeEvidence({ id: 31, kind: 'sockets' });
    const { requests } = mockApi({
      'PATCH /api/incidents/3/evidence/31/': () => json(evidence),
    });
    renderWithProviders(<BbrSettingsForm evidence={evidence} incidentId={3} busy={false} />);
    await user.click(screen.getByText('BBR-candidate settings'));
    const share = screen.getByLabelText('Bad group (% of prefixes)');
    expect(share).toHaveValue(20);
    await user.clear(share);
    await user.type(share, '10');
    const minBytes = screen.getByLabelText('Ignore flows under (bytes)');
    await user.clear(minBytes);
    await user.type(minBytes, '1000{Enter}');
    await waitFor(() => {
      expect(requests.some((r) => r.method === 'PATCH')).toBe(true);
    });
    expect(requests.find((r) => r.method === 'PATCH')?.body).toEqual({
      bbr: { bottom_share: 0.1, min_bytes: 1000, min_duty: 0.5, max_flap: 0.5, v4_prefix: 24, v6_prefix: 56 },
    });
  });

  it('says why the server refused the settings', async () => {
    const user = userEvent.setup();
    setCsrfCookie();
    const evidence = makeEvidence({ id: 32, kind: 'sockets' });
    mockApi({
      'PATCH /api/incidents/3/evidence/32/': () =>
        json({ bbr: { min_bytes: ['Ensure this value is greater than or equal to 0.'] } }, 400),
    });
    renderWithProviders(<BbrSettingsForm evidence={evidence} incidentId={3} busy={false} />);
    await user.click(screen.getByText('BBR-candidate settings'));
    await user.click(screen.getByRole('button', { name: 'Analyse again' }));
    expect(
      await screen.findByText(
        'Could not save the settings. Ignore flows under (bytes): Ensure this value is greater than or equal to 0.',
      ),
    ).toBeInTheDocument();
  });
});
