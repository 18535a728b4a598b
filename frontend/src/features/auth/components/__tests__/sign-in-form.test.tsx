import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';

import { json, mockApi, setCsrfCookie } from '@/testing/mock-api';
import { renderWithProviders } from '@/testing/render';

import { SignInForm } from '../sign-in-form';

describe('SignInForm', () => {
  it('shows the server’s error for a wrong password', async () => {
    const user = userEvent.setup();
    setCsrfCookie();
    mockApi({ 'POST /api/auth/login/': () => json({ detail: 'Wrong username or password.' }, 400) });
    const onSignedIn = vi.fn();
    renderWithProviders(<SignInForm onSignedIn={onSignedIn} />);

    await user.type(screen.getByLabelText('Username'), 'alice');
    await user.type(screen.getByLabelText('Password'), 'nope{Enter}');

    expect(await screen.findByRole('alert')).toHaveTextContent('Wrong username or password.');
    expect(onSignedIn).not.toHaveBeenCalled();
  });

  it('signs in with Enter and reports success', async () => {
    const user = userEvent.setup();
    setCsrfCookie();
    const { requests } = mockApi({
      'POST /api/auth/login/': () => json({ id: 1, username: 'alice', teams: [{ id: 1, name: 'Edge', slug: 'edge' }] }),
    });
    const onSignedIn = vi.fn();
    renderWithProviders(<SignInForm onSignedIn={onSignedIn} />);

    await user.type(screen.getByLabelText('Username'), 'alice');
    await user.type(screen.getByLabelText('Password'), 'secret{Enter}');

    await waitFor(() => {
      expect(onSignedIn).toHaveBeenCalled();
    });
    expect(requests[0]?.body).toEqual({ username: 'alice', password: 'secret' });
  });
});
