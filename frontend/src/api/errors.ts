/** An API call that did not answer 2xx; `body` is the parsed JSON error body when there was one. */
export class ApiError extends Error {
  readonly status: number;
  readonly body: unknown;

  constructor(status: number, body: unknown, message?: string) {
    super(message ?? detailOf(body) ?? `Request failed with status ${status}`);
    this.name = 'ApiError';
    this.status = status;
    this.body = body;
  }
}

/** DRF's `{detail: "..."}` message, if the body has one. */
export function detailOf(body: unknown): string | undefined {
  if (typeof body === 'object' && body !== null && 'detail' in body && typeof body.detail === 'string') {
    return body.detail;
  }
  return undefined;
}

/** The messages DRF returns for one field (`{field: ["..."]}`). */
export function fieldErrors(body: unknown, field: string): string[] {
  if (typeof body !== 'object' || body === null || !(field in body)) return [];
  const value: unknown = (body as Record<string, unknown>)[field];
  if (Array.isArray(value)) return value.filter((v): v is string => typeof v === 'string');
  return typeof value === 'string' ? [value] : [];
}

export function isNotFound(error: unknown): boolean {
  return error instanceof ApiError && error.status === 404;
}

interface FetchResult<T> {
  data?: T;
  error?: unknown;
  response: Response;
}

/** Returns the body of a successful openapi-fetch result or throws an ApiError carrying the status. */
export function unwrap<T>(result: FetchResult<T>): T {
  if (!result.response.ok || result.data === undefined) {
    throw new ApiError(result.response.status, result.error);
  }
  return result.data;
}

/** For endpoints that answer without a body (204): throws an ApiError unless the status is 2xx. */
export function expectOk(result: { error?: unknown; response: Response }): void {
  if (!result.response.ok) throw new ApiError(result.response.status, result.error);
}
