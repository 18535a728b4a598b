import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';

import { makeEvidence, makeRun } from '@/testing/fixtures';
import { json, mockApi, setCsrfCookie } from '@/testing/mock-api';
import { renderWithProviders } from '@/testing/render';

import { DeletedEvidence } from '../deleted-evidence';
import { EvidenceCard } from '../evidence-card';

const capture = makeEvidence({ id: 21, filename: 'client.pcap', analysis: makeRun({ status: 'done' }) });

describe('Taking a file out of the investigation', () => {
  it('leaves a file out of the analysis from the keyboard and says so on its card', async () => {
    const user = userEvent.setup();
    setCsrfCookie();
    const { requests } = mockApi({
      'PATCH /api/incidents/3/evidence/21/': () => json({ ...capture, excluded: true }),
    });
    const view = renderWithProviders(<EvidenceCard evidence={capture} incidentId={3} />);
    screen.getByRole('button', { name: 'Actions for client.pcap' }).focus();
    await user.keyboard('{Enter}');
    const item = await screen.findByRole('menuitem', { name: 'Leave out of the analysis' });
    expect(item).toHaveFocus();
    await user.keyboard('{Enter}');
    await waitFor(() => {
      expect(requests.find((r) => r.method === 'PATCH')?.body).toEqual({ excluded: true });
    });

    view.unmount();
    renderWithProviders(<EvidenceCard evidence={{ ...capture, excluded: true }} incidentId={3} />);
    const card = screen.getByRole('article', { name: 'client.pcap' });
    expect(within(card).getByText('Left out')).toBeInTheDocument();
    await user.click(within(card).getByRole('button', { name: 'Actions for client.pcap' }));
    expect(await screen.findByRole('menuitem', { name: 'Use in the analysis again' })).toBeInTheDocument();
  });

  it('asks before deleting: Escape keeps the file, Enter deletes it', async () => {
    const user = userEvent.setup();
    setCsrfCookie();
    const { requests } = mockApi({
      'DELETE /api/incidents/3/evidence/21/': () => new Response(null, { status: 204 }),
    });
    renderWithProviders(<EvidenceCard evidence={capture} incidentId={3} />);
    const actions = screen.getByRole('button', { name: 'Actions for client.pcap' });

    await user.click(actions);
    await user.click(await screen.findByRole('menuitem', { name: 'Delete…' }));
    const dialog = await screen.findByRole('dialog', { name: 'Delete client.pcap?' });
    expect(dialog).toHaveTextContent('restore it from “Deleted files”');
    expect(within(dialog).getByRole('button', { name: 'Delete' })).toHaveFocus();
    await user.keyboard('{Escape}');
    await waitFor(() => {
      expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
    });
    expect(requests.some((r) => r.method === 'DELETE')).toBe(false);

    await user.click(actions);
    await user.click(await screen.findByRole('menuitem', { name: 'Delete…' }));
    await screen.findByRole('dialog', { name: 'Delete client.pcap?' });
    await user.keyboard('{Enter}');
    await waitFor(() => {
      expect(requests.filter((r) => r.method === 'DELETE').map((r) => r.path)).toEqual([
        '/api/incidents/3/evidence/21/',
      ]);
    });
    await waitFor(() => {
      expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
    });
  });

  it('lists the deleted files with when each goes for good, and restores one', async () => {
    const user = userEvent.setup();
    setCsrfCookie();
    const { requests } = mockApi({
      'GET /api/incidents/3/evidence/deleted/': () =>
        json([
          {
            id: 21,
            filename: 'client.pcap',
            size: 3_145_728,
            kind: 'capture',
            deleted_at: '2026-11-27T10:00:00Z',
            deleted_by: 'tom',
            purge_at: '2026-11-28T10:00:00Z',
          },
        ]),
      'POST /api/incidents/3/evidence/21/restore/': () => json(capture),
    });
    renderWithProviders(<DeletedEvidence incidentId={3} />);
    await user.click(await screen.findByText(/Deleted files \(1\)/));
    const row = screen.getByText('client.pcap').closest('li');
    if (!row) throw new Error('no row');
    expect(row).toHaveTextContent('3.00 MiB, deleted by tom on');
    expect(row).toHaveTextContent('purged on');
    await user.click(within(row).getByRole('button', { name: 'Restore' }));
    await waitFor(() => {
      expect(requests.some((r) => r.method === 'POST' && r.path === '/api/incidents/3/evidence/21/restore/')).toBe(
        true,
      );
    });
  });

  it('shows nothing when no file was deleted', async () => {
    mockApi({ 'GET /api/incidents/3/evidence/deleted/': () => json([]) });
    const view = renderWithProviders(<DeletedEvidence incidentId={3} />);
    await waitFor(() => {
      expect(view.container).toBeEmptyDOMElement();
    });
  });
});
