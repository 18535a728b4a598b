import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { render } from '@testing-library/react';
import type { ReactElement } from 'react';
import { MemoryRouter } from 'react-router-dom';

import { evidenceKindsQueryOptions } from '@/api/evidence-kinds';

import { EVIDENCE_KINDS } from './evidence-kinds';

/**
 * Renders with a fresh QueryClient (no retries, no caching between tests) and a router. The evidence
 * kinds' catalogue is already loaded, as the incident page ensures: `evidence-kinds.ts` is what the
 * engine's registry says (`make schema` writes it; a backend test fails when it is stale).
 */
export function renderWithProviders(ui: ReactElement, { route = '/' }: { route?: string } = {}) {
  const queryClient = new QueryClient({
    defaultOptions: { queries: { retry: false, gcTime: Infinity }, mutations: { retry: false } },
  });
  queryClient.setQueryData(evidenceKindsQueryOptions.queryKey, EVIDENCE_KINDS);
  const result = render(
    <QueryClientProvider client={queryClient}>
      <MemoryRouter initialEntries={[route]}>{ui}</MemoryRouter>
    </QueryClientProvider>,
  );
  return { ...result, queryClient };
}
