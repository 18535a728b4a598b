import { useQuery } from '@tanstack/react-query';
import { Navigate, useNavigate, useSearchParams } from 'react-router-dom';

import { meQueryOptions } from '@/features/auth/api/auth-api';
import { SignInForm } from '@/features/auth/components/sign-in-form';

/** Only same-site paths are followed after sign-in. */
function safeNext(next: string | null): string {
  return next?.startsWith('/') && !next.startsWith('//') ? next : '/';
}

export function SignInRoute() {
  const [params] = useSearchParams();
  const navigate = useNavigate();
  const me = useQuery(meQueryOptions());
  const next = safeNext(params.get('next'));
  if (me.data) return <Navigate to={next} replace />;
  return (
    <div className="centered">
      <SignInForm
        onSignedIn={() => {
          void navigate(next, { replace: true });
        }}
      />
    </div>
  );
}
