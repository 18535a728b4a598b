import { ApiError } from '@/api/errors';

/** Retry network blips and 5xx twice; a 4xx (not found, forbidden, invalid) will not change by retrying. */
export function shouldRetry(failureCount: number, error: unknown): boolean {
  if (error instanceof ApiError && error.status >= 400 && error.status < 500) return false;
  return failureCount < 2;
}
