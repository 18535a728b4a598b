import { useQuery } from '@tanstack/react-query';
import { Navigate, Outlet, useLocation } from 'react-router-dom';

import { ErrorMessage } from '@/components/error-message';
import { Loading } from '@/components/loading';
import { meQueryOptions } from '@/features/auth/api/auth-api';

/** Renders the signed-in part of the app, or sends the user to sign in and back here afterwards. */
export function RequireAuth() {
  const me = useQuery(meQueryOptions());
  const location = useLocation();
  if (me.isPending) return <Loading />;
  if (me.isError) return <ErrorMessage>Could not reach the server: {me.error.message}</ErrorMessage>;
  if (me.data === null) {
    const next = `${location.pathname}${location.search}`;
    return <Navigate to={`/sign-in?next=${encodeURIComponent(next)}`} replace />;
  }
  return <Outlet />;
}
