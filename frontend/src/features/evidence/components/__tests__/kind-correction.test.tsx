import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';

import type { Evidence } from '@/api/types';
import { EVIDENCE_KINDS } from '@/testing/evidence-kinds';
import { makeEvidence, makeRun } from '@/testing/fixtures';
import { json, mockApi, setCsrfCookie } from '@/testing/mock-api';
import { renderWithProviders } from '@/testing/render';

import { EvidenceSection } from '../evidence-section';

const LIST = '/api/incidents/4/evidence/';

describe('Correcting an evidence kind', () => {
  it('PATCHes the chosen kind, then the card shows the new run waiting for a worker', async () => {
    const user = userEvent.setup();
    const token = setCsrfCookie();
    let current: Evidence = makeEvidence({
      filename: 'uname.txt',
      kind: 'latency',
      analysis: makeRun({ status: 'done', progress: 1 }),
      summary: { lines: 1 },
    });
    const { requests } = mockApi({
      [`GET ${LIST}`]: () => json([current]),
      [`GET ${LIST}deleted/`]: () => json([]),
      [`PATCH ${LIST}11/`]: () => {
        current = {
          ...current,
          kind: 'kernel_versions',
          analysis: makeRun({ id: 6, status: 'queued', forced_kind: 'kernel_versions' }),
        };
        return json(current);
      },
    });
    renderWithProviders(<EvidenceSection incidentId={4} />);
    const card = await screen.findByRole('article', { name: 'uname.txt' });
    // A file read as the wrong kind: its kind is among the card's details.
    await user.click(within(card).getByText('Details'));
    const select = within(card).getByLabelText('Evidence kind');
    expect(select).toHaveValue('latency');
    expect(
      within(select)
        .getAllByRole('option')
        .map((o) => o.getAttribute('value')),
    ).toEqual(EVIDENCE_KINDS.kinds.map((kind) => kind.name)); // the engine's kinds, in its order
    expect(within(select).getByRole('option', { name: 'Kernel versions' })).toHaveValue('kernel_versions');
    await user.selectOptions(select, 'kernel_versions');
    await user.click(within(card).getByRole('button', { name: 'Analyse again' }));

    await within(card).findByText(/Waiting for a worker/);
    const patch = requests.find((r) => r.method === 'PATCH');
    expect(patch?.body).toEqual({ kind: 'kernel_versions' });
    expect(patch?.headers.get('X-CSRFToken')).toBe(token);
    expect(within(card).getByText('Queued')).toBeInTheDocument();
    expect(within(card).getByRole('button', { name: 'Analyse again' })).toBeDisabled();
    await waitFor(() => {
      expect(within(card).getByLabelText('Evidence kind')).toHaveValue('kernel_versions');
    });
  });

  it('asks for a kind on a file whose kind was not recognised, instead of pre-selecting one', async () => {
    const user = userEvent.setup();
    setCsrfCookie();
    const { requests } = mockApi({
      [`GET ${LIST}deleted/`]: () => json([]),
      [`GET ${LIST}`]: () =>
        json([
          makeEvidence({
            filename: 'mystery.bin',
            kind: 'unknown',
            analysis: makeRun({ status: 'failed', progress: 0, error: 'Not a kind the engine reads.' }),
            summary: null,
          }),
        ]),
      [`PATCH ${LIST}11/`]: () => json({ detail: 'x' }, 409),
    });
    renderWithProviders(<EvidenceSection incidentId={4} />);
    const card = await screen.findByRole('article', { name: 'mystery.bin' });
    const select = within(card).getByLabelText('Evidence kind');
    expect(select).toHaveValue('');
    expect(within(select).getByRole('option', { name: 'Choose a kind…' })).toBeInTheDocument();
    const again = within(card).getByRole('button', { name: 'Analyse again' });
    expect(again).toBeDisabled();
    await user.selectOptions(select, 'strace');
    expect(again).toBeEnabled();
    expect(requests.filter((r) => r.method === 'PATCH')).toHaveLength(0);
  });

  it('says why when the server refuses', async () => {
    const user = userEvent.setup();
    setCsrfCookie();
    mockApi({
      [`GET ${LIST}`]: () => json([makeEvidence({ analysis: makeRun({ status: 'done', progress: 1 }) })]),
      [`GET ${LIST}deleted/`]: () => json([]),
      [`PATCH ${LIST}11/`]: () => json({ detail: 'The file is still being analysed.' }, 409),
    });
    renderWithProviders(<EvidenceSection incidentId={4} />);
    const card = await screen.findByRole('article', { name: 'client.pcap' });
    await user.click(within(card).getByText('Details'));
    await user.click(within(card).getByRole('button', { name: 'Analyse again' }));
    expect(await within(card).findByText(/The file is still being analysed/)).toBeInTheDocument();
  });
});
