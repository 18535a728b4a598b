import { type SubmitEvent, useId, useState } from 'react';

import { ErrorMessage } from '@/components/error-message';

import { loginErrorMessage, useLogin } from '../api/auth-api';

/** Username + password; Enter submits. Calls `onSignedIn` after the session exists. */
export function SignInForm({ onSignedIn }: { onSignedIn: () => void }) {
  const login = useLogin();
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const id = useId();

  const submit = (event: SubmitEvent<HTMLFormElement>) => {
    event.preventDefault();
    login.mutate({ username, password }, { onSuccess: onSignedIn });
  };

  return (
    <form className="form form--narrow" onSubmit={submit} aria-labelledby={`${id}-title`}>
      <h1 id={`${id}-title`}>Sign in to Whodunnet</h1>
      <div className="field">
        <label htmlFor={`${id}-username`}>Username</label>
        <input
          id={`${id}-username`}
          name="username"
          autoComplete="username"
          required
          autoFocus
          value={username}
          onChange={(e) => {
            setUsername(e.target.value);
          }}
        />
      </div>
      <div className="field">
        <label htmlFor={`${id}-password`}>Password</label>
        <input
          id={`${id}-password`}
          name="password"
          type="password"
          autoComplete="current-password"
          required
          value={password}
          onChange={(e) => {
            setPassword(e.target.value);
          }}
        />
      </div>
      {login.isError && <ErrorMessage>{loginErrorMessage(login.error)}</ErrorMessage>}
      <button type="submit" className="button button--primary" disabled={login.isPending}>
        {login.isPending ? 'Signing in…' : 'Sign in'}
      </button>
    </form>
  );
}
