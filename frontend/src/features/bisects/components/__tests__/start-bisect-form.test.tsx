import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it, vi } from 'vitest';

import type { Evidence } from '@/api/types';
import { makeBisect, makeEvidence, makeRun } from '@/testing/fixtures';
import { json, mockApi, setCsrfCookie } from '@/testing/mock-api';
import { renderWithProviders } from '@/testing/render';

import { StartBisectPanel } from '../start-bisect-panel';

/** A user who types without a pause between keystrokes: the same events, without one timer per character (these
 * tests type whole forms, which took more than 5 s on a busy machine). */
const typist = () => userEvent.setup({ delay: null });

const INCIDENT = 7;
const PATH = `/api/incidents/${INCIDENT}/bisects/`;

function kernelEvidence(): Evidence {
  return makeEvidence({
    id: 12,
    filename: 'uname.txt',
    kind: 'kernel_versions',
    analysis: makeRun({ status: 'done' }),
    summary: {
      lines: 2,
      versions: [
        { raw: '6.5.13-1-aws', upstream: '6.5.13', role: 'before', host: 'web-1' },
        { raw: '6.6.10-1-aws', upstream: '6.6.10', role: 'after', host: 'web-1' },
      ],
    },
  });
}

function renderPanel(evidence: Evidence[] = []) {
  const onStarted = vi.fn();
  const view = renderWithProviders(
    <StartBisectPanel incidentId={INCIDENT} evidence={evidence} onStarted={onStarted} onCancel={vi.fn()} />,
  );
  return { ...view, onStarted };
}

const form = () => screen.getByRole('form', { name: 'Start a bisect' });

describe('StartBisectPanel', () => {
  beforeEach(() => {
    setCsrfCookie('csrf-bisect');
  });

  it('says what is missing, focuses the first field to fix and sends nothing', async () => {
    const user = typist();
    const { requests } = mockApi({});
    renderPanel();

    await user.click(screen.getByRole('button', { name: 'Start bisect' }));

    const repo = screen.getByLabelText('Repository');
    expect(repo).toHaveAttribute('aria-invalid', 'true');
    expect(repo).toHaveAccessibleDescription(expect.stringMatching(/Give a git repository/));
    expect(screen.getByLabelText('Good ref')).toHaveAccessibleDescription(/where the reproducer passes/);
    expect(screen.getByLabelText('Bad ref')).toHaveAttribute('aria-invalid', 'true');
    expect(screen.getByLabelText('Reproducer command')).toHaveAttribute('aria-invalid', 'true');
    await waitFor(() => {
      expect(repo).toHaveFocus();
    });
    // Fixing a field clears its message.
    await user.type(repo, '/srv/linux.git');
    expect(repo).not.toHaveAttribute('aria-invalid');
    expect(requests.filter((r) => r.method === 'POST')).toHaveLength(0);
  });

  it('asks for a metric and a threshold with the measured-value rule', async () => {
    const user = typist();
    mockApi({});
    renderPanel();
    await user.selectOptions(screen.getByLabelText('Verdict rule'), 'metric');
    await user.clear(screen.getByLabelText('Repeats per step'));
    await user.type(screen.getByLabelText('Repeats per step'), '0');
    await user.click(screen.getByRole('button', { name: 'Start bisect' }));
    expect(screen.getByLabelText('Metric')).toHaveAttribute('aria-invalid', 'true');
    expect(screen.getByLabelText('Threshold')).toHaveAttribute('aria-invalid', 'true');
    expect(screen.getByLabelText('Repeats per step')).toHaveAccessibleDescription(/from 1 to 50/);
  });

  it('sends the whole spec when Enter is pressed, then reports the new job', async () => {
    const user = typist();
    const created = makeBisect({ id: 9 });
    const { requests } = mockApi({ [`POST ${PATH}`]: () => json(created, 201) });
    const { onStarted } = renderPanel();

    await user.type(screen.getByLabelText('Repository'), '/srv/linux.git');
    await user.type(screen.getByLabelText('Good ref'), 'v6.5.13');
    await user.type(screen.getByLabelText('Bad ref'), 'v6.6.10');
    await user.type(screen.getByLabelText('Path filter'), 'net/ipv4');
    await user.type(screen.getByLabelText('Reproducer command'), './repro.sh --bytes 100M');
    await user.type(screen.getByLabelText('Variables'), 'XFER_BYTES=104857600{Enter}# a comment{Enter}MODE=rr');
    await user.click(screen.getByLabelText("Give the reproducer the workers' network"));
    await user.clear(screen.getByLabelText('Repeats per step'));
    await user.type(screen.getByLabelText('Repeats per step'), '5');
    await user.selectOptions(screen.getByLabelText('Verdict rule'), 'metric');
    await user.type(screen.getByLabelText('Metric'), 'transfer_seconds');
    await user.type(screen.getByLabelText('Threshold'), '30');
    await user.selectOptions(screen.getByLabelText('Direction'), 'above_is_bad');
    await user.clear(screen.getByLabelText('Step timeout'));
    await user.type(screen.getByLabelText('Step timeout'), '600{Enter}');

    await waitFor(() => {
      expect(onStarted.mock.calls[0]?.[0]).toEqual(created);
    });
    const post = requests.find((r) => r.method === 'POST');
    expect(post?.path).toBe(PATH);
    expect(post?.headers.get('X-CSRFToken')).toBe('csrf-bisect');
    expect(post?.body).toEqual({
      repo: '/srv/linux.git',
      good: 'v6.5.13',
      bad: 'v6.6.10',
      path: 'net/ipv4',
      command: './repro.sh --bytes 100M',
      repeats: 5,
      min_agreement: 0.8,
      rule: 'metric',
      metric: 'transfer_seconds',
      threshold: 30,
      direction: 'above_is_bad',
      step_timeout: 600,
      on_inconclusive: 'retry_then_skip',
      on_error: 'stop',
      runner: 'local',
      env: { XFER_BYTES: '104857600', MODE: 'rr' },
      network: true,
    });
  });

  it('refuses variables the runner sets itself, or a line that is not NAME=value', async () => {
    const user = typist();
    const { requests } = mockApi({});
    renderPanel();

    await user.type(screen.getByLabelText('Variables'), 'WHODUNNET_COMMIT=abc');
    await user.click(screen.getByRole('button', { name: 'Start bisect' }));
    expect(await screen.findByText('Line 1: WHODUNNET_ variables are set by the runner.')).toBeInTheDocument();
    await user.clear(screen.getByLabelText('Variables'));
    await user.type(screen.getByLabelText('Variables'), 'just words');
    await user.click(screen.getByRole('button', { name: 'Start bisect' }));
    expect(
      await screen.findByText('Line 1: write NAME=value (letters, digits and _ in the name).'),
    ).toBeInTheDocument();
    expect(requests.filter((r) => r.method === 'POST')).toHaveLength(0);
  });

  it('puts the API’s 400 messages under their fields and the rest above the buttons', async () => {
    const user = typist();
    mockApi({
      [`POST ${PATH}`]: () =>
        json({ repo: ['Not a git repository.'], non_field_errors: ['good and bad are the same commit'] }, 400),
    });
    renderPanel();
    await user.type(screen.getByLabelText('Repository'), '/nope');
    await user.type(screen.getByLabelText('Good ref'), 'a');
    await user.type(screen.getByLabelText('Bad ref'), 'a');
    await user.type(screen.getByLabelText('Reproducer command'), 'true{Control>}{Enter}{/Control}');

    expect(await screen.findByText('Not a git repository.')).toBeInTheDocument();
    expect(screen.getByLabelText('Repository')).toHaveAttribute('aria-invalid', 'true');
    expect(
      within(form()).getByText(/Could not start the bisect: good and bad are the same commit/),
    ).toBeInTheDocument();
  });

  it('prefills good and bad with the upstream tags of the kernel versions in the evidence', async () => {
    const { requests } = mockApi({
      'GET /api/bisects/kernel-tags/': () =>
        json([
          { input: '6.5.13-1-aws', release: '6.5.13-1-aws', tag: 'v6.5.13', exact: true, note: 'a stable release' },
          { input: '6.6.10-1-aws', release: '6.6.10-1-aws', tag: 'v6.6.10', exact: true, note: 'a stable release' },
        ]),
    });
    renderPanel([kernelEvidence()]);

    expect(await screen.findByLabelText('Good ref')).toHaveValue('v6.5.13');
    expect(screen.getByLabelText('Bad ref')).toHaveValue('v6.6.10');
    expect(form()).toHaveTextContent('Prefilled from the kernel versions in the evidence');
    const lookup = requests.find((r) => r.path === '/api/bisects/kernel-tags/');
    expect(new URLSearchParams(lookup?.search).getAll('release')).toEqual(['6.5.13-1-aws', '6.6.10-1-aws']);
  });

  it('waits for the incident’s evidence before it shows the form, so its prefill cannot wipe what was typed', () => {
    const { requests } = mockApi({});
    renderWithProviders(
      <StartBisectPanel incidentId={INCIDENT} evidence={undefined} onStarted={vi.fn()} onCancel={vi.fn()} />,
    );
    expect(screen.queryByRole('form', { name: 'Start a bisect' })).not.toBeInTheDocument();
    expect(screen.getByText('Reading the incident’s evidence…')).toBeInTheDocument();
    expect(requests).toHaveLength(0);
  });

  it('leaves good and bad empty with a hint when the evidence has no kernel versions', () => {
    const { requests } = mockApi({});
    renderPanel([makeEvidence()]);
    expect(screen.getByLabelText('Good ref')).toHaveValue('');
    expect(screen.getByLabelText('Bad ref')).toHaveValue('');
    expect(form()).toHaveTextContent('No kernel versions found in the evidence');
    expect(requests).toHaveLength(0);
  });
});
