import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';

import { makeEvidence, makeRun } from '@/testing/fixtures';
import { renderWithProviders } from '@/testing/render';

import { EvidenceCard } from '../evidence-card';

function renderCard(evidence: Parameters<typeof EvidenceCard>[0]['evidence']) {
  return renderWithProviders(<EvidenceCard evidence={evidence} incidentId={3} />);
}

describe('EvidenceCard', () => {
  it('shows the file’s name, size, kind and a download link; its hash under Details', async () => {
    const user = userEvent.setup();
    renderCard(makeEvidence({ analysis: makeRun() }));
    const card = screen.getByRole('article', { name: 'client.pcap' });
    expect(card).toHaveTextContent('3.00 MiB');
    expect(card).toHaveTextContent('capture');
    // Folded, and not even built until opened.
    expect(within(card).queryByText('a3f1c2d4e5b6')).not.toBeInTheDocument();
    await user.click(within(card).getByText('Details'));
    expect(within(card).getByText('a3f1c2d4e5b6')).toHaveAttribute('title', makeEvidence().sha256);
    expect(within(card).getByRole('link', { name: 'Download' })).toHaveAttribute(
      'href',
      '/api/incidents/3/evidence/11/download/',
    );
  });

  it('shows a partial read as a warning, not a green Done', () => {
    renderCard(
      makeEvidence({
        analysis: makeRun({
          status: 'done',
          progress: 1,
          error: 'the capture ends inside a packet record',
          error_offset: 99978,
        }),
      }),
    );
    const card = screen.getByRole('article', { name: 'client.pcap' });
    expect(within(card).queryByText('Done')).not.toBeInTheDocument();
    expect(within(card).getByText('Read in part')).toBeInTheDocument();
    expect(within(card).getByRole('status')).toHaveTextContent(
      'Read in part: reading stopped at byte 99,978 (the capture ends inside a packet record).',
    );
  });

  it('says Done for a file read to its end', () => {
    renderCard(makeEvidence({ analysis: makeRun({ status: 'done', progress: 1 }) }));
    expect(screen.getByText('Done')).toBeInTheDocument();
    expect(screen.queryByText('Read in part')).not.toBeInTheDocument();
  });

  it('says when the analysis is queued', () => {
    renderCard(makeEvidence({ analysis: makeRun({ status: 'queued' }) }));
    expect(screen.getByText('Queued')).toBeInTheDocument();
    expect(screen.getByText(/Waiting for a worker/)).toBeInTheDocument();
    expect(screen.queryByRole('progressbar')).not.toBeInTheDocument();
  });

  it('shows a progress bar while the analysis runs', () => {
    renderCard(
      makeEvidence({ analysis: makeRun({ status: 'running', progress: 0.42, progress_message: 'reading packets' }) }),
    );
    const bar = screen.getByRole('progressbar', { name: 'Analysing client.pcap' });
    expect(bar).toHaveAttribute('aria-valuenow', '42');
    expect(screen.getByText(/42% · reading packets/)).toBeInTheDocument();
  });

  it('shows the capture summary when the analysis is done', async () => {
    const user = userEvent.setup();
    renderCard(
      makeEvidence({
        analysis: makeRun({ status: 'done', progress: 1, engine_version: '0.1.0' }),
        meaning: '12,840 packets, 9.00 MiB over 31.5 s, 14 TCP connections · Linux cooked v2 (tcpdump -i any)',
        // The engine's capture summary, as the worker stores it.
        summary: {
          format: 'pcap',
          compressed: false,
          link_types: ['EN10MB', 'LINUX_SLL2'],
          packets: 12840,
          bytes: 9_437_184,
          captured_bytes: 1_048_576,
          first_ts: 1714557600.0,
          last_ts: 1714557631.5,
          duration: 31.5,
          tcp_packets: 12000,
          tcp_connections: 14,
          truncated_packets: 0,
          ip_fragments: 0,
        },
      }),
    );
    const card = screen.getByRole('article', { name: 'client.pcap' });
    expect(within(card).getByText('Done')).toBeInTheDocument();
    // What the file shows leads the card; every number the parser read is folded under Details.
    expect(card.querySelector('.evidence-card__meaning')).toHaveTextContent(
      '12,840 packets, 9.00 MiB over 31.5 s, 14 TCP connections · Linux cooked v2 (tcpdump -i any)',
    );
    expect(within(card).getByText('Details').closest('details')).not.toHaveAttribute('open');
    await user.click(within(card).getByText('Details'));

    const summary = within(card).getByLabelText('Summary');
    const terms = within(summary)
      .getAllByRole('term')
      .map((t) => t.textContent);
    expect(terms.slice(0, 4)).toEqual(['Packets', 'Bytes on the wire', 'Bytes captured', 'Duration']);
    expect(terms).toContain('Link types');
    expect(terms).toContain('TCP connections');
    expect(summary).toHaveTextContent('1.00 MiB (1,048,576 B)');
    expect(screen.queryByRole('alert')).not.toBeInTheDocument();
  });

  it('shows the error in an alert when the analysis failed, with what was still read', () => {
    renderCard(
      makeEvidence({
        analysis: makeRun({
          status: 'failed',
          error: 'capture cut in the middle of a packet record',
          error_offset: 1_048_600,
        }),
        summary: { packets: 812, bytes: 70_000 },
        meaning: '812 packets, 68.4 KiB',
      }),
    );
    expect(screen.getByText('Failed')).toBeInTheDocument();
    expect(screen.getByRole('alert')).toHaveTextContent(
      'Analysis failed: capture cut in the middle of a packet record (at byte 1,048,600)',
    );
    expect(screen.getByText('812 packets, 68.4 KiB')).toBeInTheDocument();
  });

  it('says which snapshot a counters file is diffed with, over what interval, and how they were ordered', () => {
    renderCard(
      makeEvidence({
        filename: 'nstat-after.txt',
        kind: 'counters',
        analysis: makeRun({ status: 'done' }),
        pairing: {
          role: 'after',
          other: 12,
          other_filename: 'nstat-before.txt',
          interval_s: 30,
          ordered_by: 'upload order',
          formats: ['nstat'],
          host: 'db-1',
        },
      }),
    );
    const card = screen.getByRole('article', { name: 'nstat-after.txt' });
    expect(card).toHaveTextContent(/Later snapshot, diffed with nstat-before\.txt from db-1 \(over 30(\.0)? ?s\)/);
    expect(card).toHaveTextContent('Ordered by upload; say when each was taken to pair them by time.');
    expect(within(card).getByText('Taken at', { selector: 'dt' }).nextSibling).toHaveTextContent('not known');
  });
});
