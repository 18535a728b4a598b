import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it } from 'vitest';

import type { ChecklistStep } from '@/api/types';
import { makeFinding, makeStep } from '@/testing/fixtures';
import { json, mockApi, setCsrfCookie } from '@/testing/mock-api';
import { renderWithProviders } from '@/testing/render';

import { Checklist } from '../checklist';

const INCIDENT = 7;
const PATH = `/api/incidents/${INCIDENT}/checklist/`;

function steps(): ChecklistStep[] {
  // Deliberately out of order: the UI must walk neighbours → network → application → kernel.
  return [
    makeStep({ layer: 'kernel', position: 3, hint: 'Upload `uname -r` from before and after the upgrade.' }),
    makeStep({
      layer: 'network',
      position: 1,
      findings: [makeFinding()],
      suggestion: {
        verdict: 'suspect',
        reason: 'SYN retransmitted 3 times on 1 connection.',
        needs: [],
        findings: [1],
      },
    }),
    makeStep({ layer: 'neighbours', position: 0, verdict: 'cleared', rationale: 'No neighbour near its limit.' }),
    makeStep({
      layer: 'application',
      position: 2,
      needs: ['upload an strace of the client on kafka-7 (`strace -f -tt -T -y`)'],
    }),
  ];
}

function renderChecklist() {
  return renderWithProviders(
    <Checklist
      incidentId={INCIDENT}
      renderFindings={(findings) => (
        <ul aria-label="Findings">
          {findings.map((f) => (
            <li key={f.id}>{f.title}</li>
          ))}
        </ul>
      )}
    />,
  );
}

describe('Checklist', () => {
  beforeEach(() => {
    setCsrfCookie('csrf-123');
  });

  it('renders the four steps in order with verdict, findings, suggestion and hint', async () => {
    mockApi({ [`GET ${PATH}`]: () => json(steps()) });
    renderChecklist();

    const list = await screen.findByRole('list', { name: 'Checklist steps' });
    const headings = within(list).getAllByRole('heading', { level: 3 });
    expect(headings.map((h) => h.textContent)).toEqual(['Neighbours', 'Network', 'Application', 'Kernel']);

    const neighbours = within(list).getByRole('region', { name: 'Neighbours' });
    const network = within(list).getByRole('region', { name: 'Network' });
    expect(neighbours).toHaveTextContent('Cleared');
    expect(neighbours).toHaveTextContent('No neighbour near its limit.');
    expect(network).toHaveTextContent('Not looked at');
    expect(
      within(within(network).getByRole('list', { name: 'Findings' })).getByText('SYN retransmitted 3 times'),
    ).toBeInTheDocument();
    expect(within(network).getByRole('group', { name: 'Suggestion for Network' })).toHaveTextContent(
      'Suggested: SuspectReview suggestionSYN retransmitted 3 times on 1 connection.From the findings:SYN retransmitted 3 times',
    );
    // Backticked commands are shown as code, without their backticks.
    const hint = screen.getByText('uname -r');
    expect(hint.tagName).toBe('CODE');
    expect(hint.parentElement).toHaveTextContent('To settle it: Upload uname -r from before and after the upgrade.');
    // A step the rules know more about names the file that would settle it instead of the general hint.
    const application = within(list).getByRole('region', { name: 'Application' });
    const needs = within(application).getByRole('list', { name: 'What would settle Application' });
    expect(
      within(needs)
        .getAllByRole('listitem')
        .map((li) => li.textContent),
    ).toEqual(['upload an strace of the client on kafka-7 (strace -f -tt -T -y)']);
    expect(within(needs).getByText('strace -f -tt -T -y').tagName).toBe('CODE');
  });

  it('shows a culprit with its chain of evidence and what would still settle it', async () => {
    const reason =
      'dfa2f0483360 lies between 6.5.13 and 6.6.10; it predicts a 32,768-byte window; the capture measured 32,768 bytes.';
    mockApi({
      [`GET ${PATH}`]: () =>
        json([
          makeStep({
            layer: 'kernel',
            position: 3,
            findings: [makeFinding({ id: 4, layer: 'kernel', title: 'The window halved on 6.6.10' })],
            suggestion: { verdict: 'culprit', reason, needs: ['upload `sysctl net.ipv4.tcp_rmem`'], findings: [4] },
          }),
        ]),
    });
    renderChecklist();
    const kernel = await screen.findByRole('region', { name: 'Kernel' });
    const suggestion = within(kernel).getByRole('group', { name: 'Suggestion for Kernel' });
    expect(within(suggestion).getByText('Culprit')).toBeInTheDocument();
    expect(within(suggestion).getByText(reason)).toBeInTheDocument();
    expect(within(suggestion).getByRole('list', { name: 'What would settle Kernel' })).toHaveTextContent(
      'upload sysctl net.ipv4.tcp_rmem',
    );
    // The findings the reason cites, by title, linking to their cards.
    const cited = within(suggestion).getByRole('list', { name: 'Findings behind the suggestion for Kernel' });
    expect(within(cited).getByRole('link', { name: 'The window halved on 6.6.10' })).toHaveAttribute(
      'href',
      '#finding-4',
    );
  });

  it('requires a rationale before it saves a verdict', async () => {
    const user = userEvent.setup();
    const { requests } = mockApi({ [`GET ${PATH}`]: () => json(steps()) });
    renderChecklist();

    await user.click(await screen.findByRole('button', { name: 'Change verdict for Application' }));
    await user.selectOptions(screen.getByLabelText('Verdict'), 'cleared');
    await user.click(screen.getByRole('button', { name: 'Save verdict' }));

    const rationale = screen.getByLabelText('Rationale');
    expect(screen.getByRole('alert')).toHaveTextContent(/needs a rationale/);
    expect(rationale).toHaveAttribute('aria-invalid', 'true');
    expect(rationale).toHaveFocus();
    // Whitespace is not a rationale either.
    await user.type(rationale, '   ');
    await user.click(screen.getByRole('button', { name: 'Save verdict' }));
    expect(screen.getByRole('alert')).toHaveTextContent(/needs a rationale/);
    expect(requests.filter((r) => r.method === 'PATCH')).toHaveLength(0);
  });

  it('opens the verdict form on the keyboard, closes it with Escape and gives the focus back', async () => {
    const user = userEvent.setup();
    const { requests } = mockApi({ [`GET ${PATH}`]: () => json(steps()) });
    renderChecklist();

    const change = await screen.findByRole('button', { name: 'Change verdict for Kernel' });
    change.focus();
    await user.keyboard('{Enter}');
    expect(screen.getByLabelText('Verdict')).toHaveFocus();
    await user.tab();
    expect(screen.getByLabelText('Rationale')).toHaveFocus();
    await user.keyboard('half a thought{Escape}');

    expect(screen.queryByLabelText('Rationale')).not.toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Change verdict for Kernel' })).toHaveFocus();
    expect(requests.filter((r) => r.method === 'PATCH')).toHaveLength(0);
  });

  it('sends the PATCH with the verdict, the rationale and the CSRF token, then shows the new verdict', async () => {
    const user = userEvent.setup();
    let current = steps();
    const { requests } = mockApi({
      [`GET ${PATH}`]: () => json(current),
      [`PATCH ${PATH}network/`]: (request) => {
        const body = request.body as { verdict: ChecklistStep['verdict']; rationale: string };
        const updated = makeStep({
          layer: 'network',
          position: 1,
          verdict: body.verdict,
          rationale: body.rationale,
          updated_by: 'alice',
          updated_at: '2024-05-01T11:00:00Z',
        });
        current = current.map((s) => (s.layer === 'network' ? updated : s));
        return json(updated);
      },
    });
    renderChecklist();

    await user.click(await screen.findByRole('button', { name: 'Change verdict for Network' }));
    await user.selectOptions(screen.getByLabelText('Verdict'), 'suspect');
    await user.type(screen.getByLabelText('Rationale'), 'SYNs retransmitted on the client, none seen at the server.');
    await user.click(screen.getByRole('button', { name: 'Save verdict' }));

    await waitFor(() => {
      expect(requests.filter((r) => r.method === 'PATCH')).toHaveLength(1);
    });
    const patch = requests.find((r) => r.method === 'PATCH');
    expect(patch?.path).toBe(`${PATH}network/`);
    expect(patch?.body).toEqual({
      verdict: 'suspect',
      rationale: 'SYNs retransmitted on the client, none seen at the server.',
    });
    expect(patch?.headers.get('X-CSRFToken')).toBe('csrf-123');

    await waitFor(() => {
      expect(screen.queryByRole('button', { name: 'Save verdict' })).not.toBeInTheDocument();
    });
    const network = screen.getByRole('region', { name: 'Network' });
    expect(network).toHaveTextContent('Suspect');
    expect(network).toHaveTextContent('SYNs retransmitted on the client, none seen at the server.');
  });

  it('shows the server’s rationale error', async () => {
    const user = userEvent.setup();
    mockApi({
      [`GET ${PATH}`]: () => json(steps()),
      [`PATCH ${PATH}kernel/`]: () => json({ rationale: ['This field may not be blank.'] }, 400),
    });
    renderChecklist();

    await user.click(await screen.findByRole('button', { name: 'Change verdict for Kernel' }));
    await user.type(screen.getByLabelText('Rationale'), 'x');
    await user.click(screen.getByRole('button', { name: 'Save verdict' }));

    expect(await screen.findByRole('alert')).toHaveTextContent('This field may not be blank.');
  });

  it('folds the chain of evidence behind one line once the team agrees with the suggestion', async () => {
    const agreed = steps().map((s) => (s.layer === 'network' ? { ...s, verdict: 'suspect' as const } : s));
    mockApi({ [`GET ${PATH}`]: () => json(agreed) });
    renderChecklist();
    const network = await screen.findByRole('region', { name: 'Network' });
    const folded = within(network)
      .getByText(/The evidence suggested the same:/)
      .closest('details');
    expect(folded).not.toHaveAttribute('open');
    expect(within(network).queryByRole('button', { name: 'Review suggestion for Network' })).not.toBeInTheDocument();
  });

  it('prefills the form from the suggestion', async () => {
    const user = userEvent.setup();
    mockApi({ [`GET ${PATH}`]: () => json(steps()) });
    renderChecklist();

    await user.click(await screen.findByRole('button', { name: 'Review suggestion for Network' }));
    expect(screen.getByLabelText('Verdict')).toHaveValue('suspect');
    expect(screen.getByLabelText('Rationale')).toHaveValue('SYN retransmitted 3 times on 1 connection.');
  });
});
