import { useQuery } from '@tanstack/react-query';
import { Link, useNavigate } from 'react-router-dom';

import { meQueryOptions, useLogout } from '../api/auth-api';

/** The signed-in user's name, their teams, the API-token page and "Sign out". */
export function UserMenu() {
  const { data: me } = useQuery(meQueryOptions());
  const logout = useLogout();
  const navigate = useNavigate();
  if (!me) return null;
  return (
    <nav className="user-menu" aria-label="Account">
      <span className="user-menu__name">
        Signed in as <strong>{me.username}</strong>
        {me.teams.length > 0 && <span className="muted"> · {me.teams.map((t) => t.name).join(', ')}</span>}
      </span>
      <Link to="/api-token">API token</Link>
      <button
        type="button"
        className="button button--small"
        disabled={logout.isPending}
        onClick={() => {
          logout.mutate(undefined, {
            onSuccess: () => {
              void navigate('/sign-in');
            },
          });
        }}
      >
        Sign out
      </button>
    </nav>
  );
}
