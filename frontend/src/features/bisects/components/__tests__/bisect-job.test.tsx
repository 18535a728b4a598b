import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it } from 'vitest';

import type { Bisect } from '@/api/types';
import { makeBisect, makeBisectStep } from '@/testing/fixtures';
import { json, mockApi, setCsrfCookie } from '@/testing/mock-api';
import { renderWithProviders } from '@/testing/render';

import { BisectJob } from '../bisect-job';

const INCIDENT = 7;
const JOB = 3;
const PATH = `/api/incidents/${INCIDENT}/bisects/${JOB}/`;

const STEP_1 = makeBisectStep({ id: 101, index: 0, verdict: 'good', revisions_left: 32 });
const STEP_2 = makeBisectStep({
  id: 102,
  index: 1,
  commit: 'badbadbadbad0000000000000000000000000000',
  title: 'tcp: shrink the default window',
  verdict: 'bad',
  revisions_left: 16,
  runs: [
    {
      exit_code: 1,
      timed_out: false,
      duration: 2,
      stdout_tail: 'value is 2',
      stderr_tail: '',
      metric_value: null,
      error: null,
    },
  ],
});

function running(overrides: Partial<Bisect> = {}): Bisect {
  return makeBisect({
    id: JOB,
    incident: INCIDENT,
    status: 'running',
    steps: [
      STEP_1,
      makeBisectStep({
        id: 102,
        index: 1,
        status: 'running',
        verdict: '',
        commit: '',
        title: '',
        runs: [],
        duration: null,
      }),
    ],
    progress: { steps_done: 1, revisions_left: 32, steps_left: 5, mean_step_seconds: 90, seconds_left: 450 },
    log: 'git bisect start\n# good: [c0ffee] net: tcp: tweak the receive window\n',
    ...overrides,
  });
}

function renderJob({ canRetry = true } = {}) {
  return renderWithProviders(<BisectJob incidentId={INCIDENT} bisectId={JOB} canRetry={canRetry} />);
}

describe('BisectJob', () => {
  beforeEach(() => {
    setCsrfCookie('csrf-job');
  });

  it('shows steps done, revisions left and the estimates, with a real progress bar', async () => {
    mockApi({ [`GET ${PATH}`]: () => json(running()) });
    renderJob();

    const bar = await screen.findByRole('progressbar', { name: 'Bisect progress' });
    // 1 step done of about 1 + 5.
    expect(bar).toHaveAttribute('aria-valuenow', '17');
    expect(bar).toHaveAttribute('aria-valuetext', '17% (1 step done of about 6)');
    const facts = within(screen.getByLabelText('Progress numbers'));
    expect(facts.getByText('Steps done').nextSibling).toHaveTextContent('1');
    expect(facts.getByText('Revisions left').nextSibling).toHaveTextContent('32');
    expect(facts.getByText('Estimated steps left').nextSibling).toHaveTextContent('5');
    expect(facts.getByText('Estimated time left').nextSibling).toHaveTextContent('7 min 30 s');

    const steps = screen.getByRole('list', { name: 'Bisect steps' });
    const first = within(steps).getByRole('listitem', { name: 'Step 1' });
    expect(first).toHaveTextContent('c0ffee123456');
    expect(first).toHaveTextContent('net: tcp: tweak the receive window');
    expect(first).toHaveTextContent('Good');
    expect(first).toHaveTextContent('1.50 s');
    expect(within(steps).getByRole('listitem', { name: 'Step 2' })).toHaveTextContent('Running…');
  });

  it('polls while the job runs: a recorded step and the result arrive without a reload', async () => {
    const user = userEvent.setup();
    let job = running();
    mockApi({ [`GET ${PATH}`]: () => json(job) });
    renderJob();
    await screen.findByRole('listitem', { name: 'Step 2' });
    expect(screen.queryByRole('heading', { name: 'First bad commit' })).not.toBeInTheDocument();

    job = makeBisect({
      ...job,
      status: 'found',
      finished: true,
      steps: [STEP_1, STEP_2],
      progress: { steps_done: 2, revisions_left: 1, steps_left: 0, mean_step_seconds: 90, seconds_left: 0 },
      first_bad: {
        id: STEP_2.commit,
        title: STEP_2.title,
        author: 'Ann Dev <ann@example.org>',
        date: '2023-10-01T12:00:00+02:00',
        files: ['net/ipv4/tcp_output.c', 'include/net/tcp.h'],
        known_change: null,
        touches_path: true,
      },
    });

    const step2 = screen.getByRole('listitem', { name: 'Step 2' });
    await waitFor(
      () => {
        expect(step2).toHaveTextContent('tcp: shrink the default window');
      },
      { timeout: 3000 },
    );
    expect(step2).toHaveTextContent('Bad');
    const result = screen.getByRole('article', { name: 'First bad commit' });
    expect(result).toHaveTextContent('badbadbadbad');
    expect(result).toHaveTextContent('Ann Dev <ann@example.org>');
    expect(result).toHaveTextContent('touches net/ipv4');
    expect(within(result).getByRole('list', { name: 'Files touched' })).toHaveTextContent(
      'net/ipv4/tcp_output.c (in net/ipv4)',
    );
    expect(screen.getByRole('progressbar', { name: 'Bisect progress' })).toHaveAttribute('aria-valuenow', '100');
    expect(screen.queryByRole('button', { name: 'Cancel bisect' })).not.toBeInTheDocument();

    // The output tails open on demand.
    await user.click(within(step2).getByText('Output of 1 run'));
    expect(within(step2).getByLabelText('Run 1 stdout')).toHaveTextContent('value is 2');
    // And so does the bisect log.
    await user.click(screen.getByText('Bisect log'));
    expect(screen.getByLabelText('Bisect log')).toHaveTextContent('git bisect start');
  });

  it('cancels after a confirmation', async () => {
    const user = userEvent.setup();
    let job = running();
    const { requests } = mockApi({
      [`GET ${PATH}`]: () => json(job),
      [`POST ${PATH}cancel/`]: () => {
        job = makeBisect({ ...job, status: 'cancelled', finished: true });
        return json(job);
      },
    });
    renderJob();

    await user.click(await screen.findByRole('button', { name: 'Cancel bisect' }));
    const confirm = screen.getByRole('alertdialog', { name: 'Cancel this bisect?' });
    // "Keep running" backs out without a request.
    await user.click(within(confirm).getByRole('button', { name: 'Keep running' }));
    expect(requests.filter((r) => r.method === 'POST')).toHaveLength(0);

    await user.click(screen.getByRole('button', { name: 'Cancel bisect' }));
    expect(screen.getByRole('button', { name: 'Yes, cancel it' })).toHaveFocus();
    await user.keyboard('{Enter}');

    await waitFor(() => {
      expect(requests.filter((r) => r.method === 'POST' && r.path === `${PATH}cancel/`)).toHaveLength(1);
    });
    expect(await screen.findByText('Cancelled')).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Cancel bisect' })).not.toBeInTheDocument();
  });

  it('offers to retry the last step of a failed job', async () => {
    const user = userEvent.setup();
    const failedStep = makeBisectStep({ id: 102, index: 1, verdict: 'error', reason: 'run timed out' });
    const job = running({ status: 'failed', finished: true, error: 'step 2 errored', steps: [STEP_1, failedStep] });
    const { requests } = mockApi({
      [`GET ${PATH}`]: () => json(job),
      [`POST ${PATH}steps/102/retry/`]: () =>
        json(makeBisectStep({ id: 103, index: 2, attempt: 1, status: 'queued' }), 201),
    });
    renderJob();

    expect(await screen.findByRole('alert')).toHaveTextContent('The bisect failed: step 2 errored');
    expect(within(screen.getByRole('listitem', { name: 'Step 1' })).queryByRole('button')).not.toBeInTheDocument();
    await user.click(
      within(screen.getByRole('listitem', { name: 'Step 2' })).getByRole('button', { name: 'Retry step' }),
    );
    await waitFor(() => {
      expect(requests.filter((r) => r.method === 'POST')).toHaveLength(1);
    });
    expect(requests.find((r) => r.method === 'POST')?.path).toBe(`${PATH}steps/102/retry/`);
  });

  it('offers no retry to a teammate who does not own the team', async () => {
    const failedStep = makeBisectStep({ id: 102, index: 1, verdict: 'error', reason: 'run timed out' });
    const job = running({ status: 'failed', finished: true, error: 'step 2 errored', steps: [STEP_1, failedStep] });
    mockApi({ [`GET ${PATH}`]: () => json(job) });
    renderJob({ canRetry: false });

    expect(await screen.findByRole('alert')).toHaveTextContent('The bisect failed: step 2 errored');
    expect(screen.queryByRole('button', { name: 'Retry step' })).not.toBeInTheDocument();
  });

  it('says what the reproducer runs with: the network and the variables it was given', async () => {
    mockApi({ [`GET ${PATH}`]: () => json(running({ env: { XFER_BYTES: '1048576' }, network: false })) });
    renderJob();

    const runsWith = await screen.findByText('Runs with');
    expect(runsWith.nextSibling).toHaveTextContent('no network; XFER_BYTES set');
  });
});
