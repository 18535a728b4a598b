import { queryOptions, useQuery } from '@tanstack/react-query';

import { api } from './client';
import { unwrap } from './errors';
import type { EvidenceKindCatalogue, EvidenceKindInfo, FindingSpec } from './types';

/**
 * The evidence kinds and how each finding's numbers are shown, as the engine declares them: the UI
 * knows no kind by name. It changes only with a new server version, so it is fetched once.
 */
export const evidenceKindsQueryOptions = queryOptions({
  queryKey: ['evidence-kinds'] as const,
  queryFn: async ({ signal }) => unwrap(await api.GET('/api/evidence-kinds/', { signal })),
  staleTime: Infinity,
});

/** The catalogue, or undefined until it has loaded (the incident page waits for it). */
export function useEvidenceKinds(): EvidenceKindCatalogue | undefined {
  return useQuery(evidenceKindsQueryOptions).data;
}

export function kindInfo(catalogue: EvidenceKindCatalogue | undefined, name: string): EvidenceKindInfo | undefined {
  return catalogue?.kinds.find((kind) => kind.name === name);
}

export function findingSpec(catalogue: EvidenceKindCatalogue | undefined, kind: string): FindingSpec | undefined {
  return catalogue?.findings.find((spec) => spec.kind === kind);
}
