import { queryOptions, useMutation, useQueryClient } from '@tanstack/react-query';

import { api, ensureCsrfCookie } from '@/api/client';
import { ApiError, expectOk, unwrap } from '@/api/errors';
import type { LoginBody, Me } from '@/api/types';

export const authKeys = {
  me: ['auth', 'me'] as const,
};

/** The signed-in user, or `null` when signed out (the API answers 204, not an error a browser would log). */
export const meQueryOptions = () =>
  queryOptions({
    queryKey: authKeys.me,
    queryFn: async ({ signal }): Promise<Me | null> => {
      const result = await api.GET('/api/auth/me/', { signal });
      if (result.response.status === 204) return null;
      return unwrap(result);
    },
    staleTime: 60_000,
  });

export function useLogin() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (body: LoginBody) => {
      await ensureCsrfCookie();
      return unwrap(await api.POST('/api/auth/login/', { body }));
    },
    onSuccess: (me) => {
      // Everything cached belonged to whoever was signed in before.
      queryClient.removeQueries({ predicate: (q) => q.queryKey[0] !== authKeys.me[0] });
      queryClient.setQueryData(authKeys.me, me);
    },
  });
}

export function useLogout() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async () => {
      expectOk(await api.POST('/api/auth/logout/'));
    },
    onSuccess: () => {
      queryClient.clear();
      queryClient.setQueryData(authKeys.me, null);
    },
  });
}

/** Creates the user's API token, or rotates it (the old one stops working). */
export function useCreateToken() {
  return useMutation({
    mutationFn: async () => unwrap(await api.POST('/api/auth/token/')),
  });
}

export function loginErrorMessage(error: unknown): string {
  if (error instanceof ApiError) {
    if (error.status === 429) return error.message;
    if (error.status === 400 || error.status === 401 || error.status === 403) {
      return error.message.startsWith('Request failed') ? 'Wrong username or password.' : error.message;
    }
    return `Sign-in failed (${error.status}). Try again.`;
  }
  return 'Could not reach the server. Check your connection and try again.';
}
