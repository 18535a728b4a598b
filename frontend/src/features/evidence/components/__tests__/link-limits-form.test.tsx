import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';

import { makeEvidence } from '@/testing/fixtures';
import { json, mockApi, setCsrfCookie } from '@/testing/mock-api';
import { renderWithProviders } from '@/testing/render';

import { LinkLimitsForm } from '../link-limits-form';

const summary = { formats: ['ip -s link'], interfaces: { macvtap2: { rx_bytes: 1 }, eth0: { rx_bytes: 2 } } };

describe('LinkLimitsForm', () => {
  it('lists the snapshot’s interfaces and sends the limits given, in bit/s', async () => {
    const user = userEvent.setup();
    setCsrfCookie();
    const evidence = makeEvidence({ id: 41, kind: 'counters', summary, link_limits_bps: { eth0: 10e9 } });
    const { requests } = mockApi({ 'PATCH /api/incidents/3/evidence/41/': () => json(evidence) });
    renderWithProviders(<LinkLimitsForm evidence={evidence} incidentId={3} busy={false} />);
    await user.click(screen.getByText('Interface limits'));
    expect(screen.getByLabelText('eth0 (Gbit/s)')).toHaveValue(10);
    await user.type(screen.getByLabelText('macvtap2 (Gbit/s)'), '2.5');
    await user.click(screen.getByRole('button', { name: 'Save limits' }));
    await waitFor(() => {
      expect(requests.some((r) => r.method === 'PATCH')).toBe(true);
    });
    expect(requests.find((r) => r.method === 'PATCH')?.body).toEqual({
      link_limits_bps: { eth0: 10e9, macvtap2: 2.5e9 },
    });
  });

  it('says what the server refused', async () => {
    const user = userEvent.setup();
    setCsrfCookie();
    const evidence = makeEvidence({ id: 42, kind: 'counters', summary });
    mockApi({
      'PATCH /api/incidents/3/evidence/42/': () => json({ link_limits_bps: ['not an interface name: "x y"'] }, 400),
    });
    renderWithProviders(<LinkLimitsForm evidence={evidence} incidentId={3} busy={false} />);
    await user.click(screen.getByText('Interface limits'));
    await user.click(screen.getByRole('button', { name: 'Save limits' }));
    expect(await screen.findByText('Could not save the limits. not an interface name: "x y"')).toBeInTheDocument();
  });

  it('is not shown for a snapshot without interfaces', () => {
    const evidence = makeEvidence({ kind: 'counters', summary: { formats: ['nstat'], interfaces: {} } });
    renderWithProviders(<LinkLimitsForm evidence={evidence} incidentId={3} busy={false} />);
    expect(screen.queryByText('Interface limits')).not.toBeInTheDocument();
  });
});
