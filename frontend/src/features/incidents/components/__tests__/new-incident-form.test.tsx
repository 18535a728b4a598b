import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';

import { json, mockApi, setCsrfCookie } from '@/testing/mock-api';
import { renderWithProviders } from '@/testing/render';

import { NewIncidentForm } from '../new-incident-form';

describe('NewIncidentForm', () => {
  it('waits for the teams before it can create, then creates for the first team', async () => {
    const user = userEvent.setup();
    setCsrfCookie();
    let answerTeams: (response: Response) => void = () => undefined;
    const { requests } = mockApi({
      'GET /api/teams/': () =>
        new Promise<Response>((resolve) => {
          answerTeams = resolve;
        }),
      'POST /api/incidents/': () =>
        json({ id: 7, title: 'Slow reads', team: 2, team_name: 'Edge', status: 'open', severity: 'sev3' }, 201),
    });
    const onCreated = vi.fn();
    renderWithProviders(<NewIncidentForm onCreated={onCreated} />);
    await user.type(screen.getByLabelText('Title'), 'Slow reads');
    const create = screen.getByRole('button', { name: 'Create incident' });
    expect(create).toBeDisabled();
    expect(screen.getByText('Loading your teams…')).toBeInTheDocument();
    answerTeams(json([{ id: 2, name: 'Edge', role: 'owner' }]));
    await waitFor(() => {
      expect(create).toBeEnabled();
    });
    await user.click(create);
    await waitFor(() => {
      expect(onCreated).toHaveBeenCalled();
    });
    expect(requests.find((r) => r.method === 'POST')?.body).toMatchObject({ team: 2, title: 'Slow reads' });
    expect(screen.queryByText('Choose a team.')).not.toBeInTheDocument();
  });
});
