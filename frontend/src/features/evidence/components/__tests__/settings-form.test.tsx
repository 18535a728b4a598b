import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';

import { kindInfo } from '@/api/evidence-kinds';
import type { SettingsGroup } from '@/api/types';
import { EVIDENCE_KINDS } from '@/testing/evidence-kinds';
import { makeEvidence } from '@/testing/fixtures';
import { json, mockApi, setCsrfCookie } from '@/testing/mock-api';
import { renderWithProviders } from '@/testing/render';

import { SettingsForm } from '../settings-form';

/** A settings group as the engine declares it (the catalogue the API serves). */
function group(kind: string, name: string): SettingsGroup {
  const found = kindInfo(EVIDENCE_KINDS, kind)?.settings.find((g) => g.name === name);
  if (!found) throw new Error(`no settings group ${name} for ${kind}`);
  return found;
}

describe('SettingsForm for a group of numbers (BBR candidates)', () => {
  const bbr = group('sockets', 'bbr');

  it('shows the current settings as percentages and sends shares back', async () => {
    const user = userEvent.setup();
    setCsrfCookie();
    const evidence = makeEvidence({ id: 31, kind: 'sockets' });
    const { requests } = mockApi({
      'PATCH /api/incidents/3/evidence/31/': () => json(evidence),
    });
    renderWithProviders(<SettingsForm group={bbr} evidence={evidence} incidentId={3} busy={false} />);
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

  it('starts from the values the file is analysed with', async () => {
    const user = userEvent.setup();
    const evidence = makeEvidence({ kind: 'sockets', settings: { bbr: { min_duty: 0.7, v4_prefix: 16 } } });
    renderWithProviders(<SettingsForm group={bbr} evidence={evidence} incidentId={3} busy={false} />);
    await user.click(screen.getByText('BBR-candidate settings'));
    expect(screen.getByLabelText('Duty cycle at least (%)')).toHaveValue(70);
    expect(screen.getByLabelText('IPv4 prefix (bits)')).toHaveValue(16);
    expect(screen.getByLabelText('Bad group (% of prefixes)')).toHaveValue(20); // not given: the default
    expect(screen.getByLabelText('Bad group (% of prefixes)')).toHaveAttribute('min', '1');
  });

  it('says why the server refused the settings', async () => {
    const user = userEvent.setup();
    setCsrfCookie();
    const evidence = makeEvidence({ id: 32, kind: 'sockets' });
    mockApi({
      'PATCH /api/incidents/3/evidence/32/': () =>
        json({ bbr: { min_bytes: ['Ensure this value is greater than or equal to 0.'] } }, 400),
    });
    renderWithProviders(<SettingsForm group={bbr} evidence={evidence} incidentId={3} busy={false} />);
    await user.click(screen.getByText('BBR-candidate settings'));
    await user.click(screen.getByRole('button', { name: 'Analyse again' }));
    expect(
      await screen.findByText(
        'Could not save these settings. Ignore flows under (bytes): Ensure this value is greater than or equal to 0.',
      ),
    ).toBeInTheDocument();
  });
});

describe('SettingsForm for rates per key (interface limits)', () => {
  const limits = group('counters', 'link_limits_bps');
  const summary = { formats: ['ip -s link'], interfaces: { macvtap2: { rx_bytes: 1 }, eth0: { rx_bytes: 2 } } };

  it('lists the snapshot’s interfaces and sends the limits given, in bit/s', async () => {
    const user = userEvent.setup();
    setCsrfCookie();
    const evidence = makeEvidence({
      id: 41,
      kind: 'counters',
      summary,
      settings: { link_limits_bps: { eth0: 10e9 } },
    });
    const { requests } = mockApi({ 'PATCH /api/incidents/3/evidence/41/': () => json(evidence) });
    renderWithProviders(<SettingsForm group={limits} evidence={evidence} incidentId={3} busy={false} />);
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
    renderWithProviders(<SettingsForm group={limits} evidence={evidence} incidentId={3} busy={false} />);
    await user.click(screen.getByText('Interface limits'));
    await user.click(screen.getByRole('button', { name: 'Save limits' }));
    expect(await screen.findByText('Could not save these settings. not an interface name: "x y"')).toBeInTheDocument();
  });

  it('is not shown for a snapshot without interfaces', () => {
    const evidence = makeEvidence({ kind: 'counters', summary: { formats: ['nstat'], interfaces: {} } });
    renderWithProviders(<SettingsForm group={limits} evidence={evidence} incidentId={3} busy={false} />);
    expect(screen.queryByText('Interface limits')).not.toBeInTheDocument();
  });
});
