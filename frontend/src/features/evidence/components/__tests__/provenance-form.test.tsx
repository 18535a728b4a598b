import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';

import { makeEvidence } from '@/testing/fixtures';
import { json, mockApi, setCsrfCookie } from '@/testing/mock-api';
import { renderWithProviders } from '@/testing/render';

import { ProvenanceForm } from '../provenance-form';

const fromTheFile = makeEvidence({
  id: 21,
  kind: 'counters',
  filename: 'client-nstat-after.txt',
  provenance: {
    host: { value: 'client', source: 'filename' },
    role: { value: 'client', source: 'filename' },
    taken_at: { value: null, source: null },
  },
});

describe('ProvenanceForm', () => {
  it('shows each value with where it came from', () => {
    renderWithProviders(<ProvenanceForm evidence={fromTheFile} incidentId={3} />);
    const facts = screen.getByRole('region', { name: 'Where it comes from' });
    expect(within(facts).getByText('Host', { selector: 'dt' }).nextSibling).toHaveTextContent(
      'client (from the file name)',
    );
    expect(within(facts).getByText('Role', { selector: 'dt' }).nextSibling).toHaveTextContent(
      'Client (from the file name)',
    );
    expect(within(facts).getByText('Taken at', { selector: 'dt' }).nextSibling).toHaveTextContent('not known');
  });

  it('sends a person’s host, role and time from the keyboard; empty fields go back to the file', async () => {
    const user = userEvent.setup();
    setCsrfCookie();
    const { requests } = mockApi({
      'PATCH /api/incidents/3/evidence/21/': () =>
        json({
          ...fromTheFile,
          provenance: { ...fromTheFile.provenance, host: { value: 'db-1', source: 'user' } },
        }),
    });
    renderWithProviders(<ProvenanceForm evidence={fromTheFile} incidentId={3} />);
    // Open the form (jsdom does not open a <details> from the keyboard; browsers do) and fill it without the mouse.
    await user.click(screen.getByText('Change host, role or time'));
    const host = screen.getByLabelText('Host');
    expect(host).toHaveAttribute('placeholder', 'client');
    await user.click(host);
    await user.keyboard('db-1');
    await user.selectOptions(screen.getByLabelText('Role'), 'server');
    await user.type(screen.getByLabelText('Taken at'), '2026-11-20T10:00:30');
    await user.click(screen.getByRole('button', { name: 'Save' }));
    await waitFor(() => {
      expect(requests.some((r) => r.method === 'PATCH')).toBe(true);
    });
    expect(requests.find((r) => r.method === 'PATCH')?.body).toEqual({
      host: 'db-1',
      role: 'server',
      taken_at: new Date('2026-11-20T10:00:30').toISOString(),
    });
  });

  it('starts from a person’s values and clears them back to the file', async () => {
    const user = userEvent.setup();
    setCsrfCookie();
    const given = makeEvidence({
      id: 21,
      provenance: {
        host: { value: 'db-1', source: 'user' },
        role: { value: 'server', source: 'user' },
        taken_at: { value: null, source: null },
      },
    });
    const { requests } = mockApi({ 'PATCH /api/incidents/3/evidence/21/': () => json(given) });
    renderWithProviders(<ProvenanceForm evidence={given} incidentId={3} />);
    expect(screen.getByText('Host', { selector: 'dt' }).nextSibling).toHaveTextContent('db-1 (set by a person)');
    await user.click(screen.getByText('Change host, role or time'));
    expect(screen.getByLabelText('Host')).toHaveValue('db-1');
    await user.clear(screen.getByLabelText('Host'));
    await user.selectOptions(screen.getByLabelText('Role'), '');
    await user.click(screen.getByRole('button', { name: 'Save' }));
    await waitFor(() => {
      expect(requests.find((r) => r.method === 'PATCH')?.body).toEqual({ host: null, role: null, taken_at: null });
    });
  });
});
