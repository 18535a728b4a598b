import { queryOptions } from '@tanstack/react-query';

import { api } from '@/api/client';
import { unwrap } from '@/api/errors';

export const kernelTagKeys = {
  forReleases: (releases: readonly string[]) => ['bisects', 'kernel-tags', ...releases] as const,
};

/** Upstream tags (good/bad refs) for kernel release strings such as `6.6.10-1-aws`. */
export const kernelTagsQueryOptions = (releases: readonly string[]) =>
  queryOptions({
    queryKey: kernelTagKeys.forReleases(releases),
    queryFn: async ({ signal }) =>
      unwrap(await api.GET('/api/bisects/kernel-tags/', { params: { query: { release: [...releases] } }, signal })),
    enabled: releases.length > 0,
    // A release always maps to the same tag.
    staleTime: Infinity,
  });
