import { screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';

import { makeStep } from '@/testing/fixtures';
import { json, mockApi } from '@/testing/mock-api';
import { renderWithProviders } from '@/testing/render';

import { firstSentence } from '../../lib/strip';
import { VerdictStrip } from '../verdict-strip';

describe('VerdictStrip', () => {
  it('shows each layer in order with the team’s verdict, else the suggestion, and a one-line reason', async () => {
    mockApi({
      'GET /api/incidents/4/checklist/': () =>
        json([
          makeStep({ layer: 'kernel', position: 3 }),
          makeStep({
            layer: 'application',
            position: 2,
            suggestion: {
              verdict: 'culprit',
              reason:
                'The client caps its receive buffer at 65,536 B (strace on kafka-7, line 2). The window then limits it.',
              needs: [],
              findings: [],
            },
          }),
          makeStep({ layer: 'neighbours', position: 0, verdict: 'cleared', rationale: 'No neighbour near its limit.' }),
          makeStep({
            layer: 'network',
            position: 1,
            needs: ['upload `ethtool IFACE` or `<img src=x onerror=alert(1)>` from broker-2'],
          }),
        ]),
    });
    renderWithProviders(<VerdictStrip incidentId={4} />);
    const strip = await screen.findByRole('region', { name: 'Verdicts by layer' });
    const layers = await within(strip).findAllByRole('listitem');
    expect(layers.map((l) => within(l).getByRole('link').textContent)).toEqual([
      'Neighbours',
      'Network',
      'Application',
      'Kernel',
    ]);
    expect(layers[0]).toHaveTextContent('Cleared');
    expect(layers[0]).toHaveTextContent('No neighbour near its limit.');
    expect(layers[1]).toHaveTextContent('Not looked at');
    // Commands in backticks are code, never HTML and never raw backticks.
    expect(layers[1]).toHaveTextContent(
      'To settle it: upload ethtool IFACE or <img src=x onerror=alert(1)> from broker-2',
    );
    expect(layers[1]).not.toHaveTextContent('`');
    const network = layers[1];
    if (!network) throw new Error('no Network layer');
    expect(within(network).getByText('ethtool IFACE').tagName).toBe('CODE');
    expect(within(network).getByText('<img src=x onerror=alert(1)>').tagName).toBe('CODE');
    expect(strip.querySelector('img')).toBeNull();
    expect(within(network).getByTitle(/^To settle it: upload ethtool IFACE or/)).toBeInTheDocument();
    expect(layers[2]).toHaveTextContent('Suggested');
    expect(layers[2]).toHaveTextContent('Culprit');
    // One line: the first sentence, numbers kept whole, the rest stays in the checklist below.
    expect(layers[2]).toHaveTextContent('The client caps its receive buffer at 65,536 B (strace on kafka-7, line 2).');
    expect(layers[2]).not.toHaveTextContent('The window then limits it.');
    expect(within(strip).getAllByRole('link')[0]).toHaveAttribute('href', '#step-neighbours');
  });

  it('says when the checklist cannot be read', async () => {
    mockApi({ 'GET /api/incidents/4/checklist/': () => json({ detail: 'Server error.' }, 500) });
    renderWithProviders(<VerdictStrip incidentId={4} />);
    expect(await screen.findByText(/Could not load the verdicts/)).toBeInTheDocument();
  });
});

describe('firstSentence', () => {
  it('keeps decimals and cuts at the first full stop followed by a space', () => {
    expect(firstSentence('Retransmitted 1.03 % of segments. Then more.')).toBe('Retransmitted 1.03 % of segments.');
    expect(firstSentence('No stop here')).toBe('No stop here');
  });
});
