import { QueryCache, QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { type ReactNode, useState } from 'react';

import { ApiError } from '@/api/errors';
import { authKeys } from '@/features/auth/api/auth-api';
import { shouldRetry } from '@/lib/query-client';

function makeClient(): QueryClient {
  const client: QueryClient = new QueryClient({
    queryCache: new QueryCache({
      onError: (error) => {
        // A 403 on any query means the session ended (signed out elsewhere, expired): forget the user,
        // which sends the app back to the sign-in page.
        if (error instanceof ApiError && error.status === 403) client.setQueryData(authKeys.me, null);
      },
    }),
    defaultOptions: {
      queries: { retry: shouldRetry, staleTime: 2_000 },
      mutations: { retry: false },
    },
  });
  return client;
}

export function AppProvider({ children }: { children: ReactNode }) {
  const [queryClient] = useState(makeClient);
  return <QueryClientProvider client={queryClient}>{children}</QueryClientProvider>;
}
