import createClient, { type Middleware } from 'openapi-fetch';

import { CSRF_HEADER, csrfToken } from '@/lib/cookies';

import type { paths } from './schema';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS', 'TRACE']);

/** Makes sure Django has set the `csrftoken` cookie (the endpoint answers 204 and sets it). */
export async function ensureCsrfCookie(): Promise<string | undefined> {
  const existing = csrfToken();
  if (existing) return existing;
  await fetch('/api/auth/csrf/', { credentials: 'same-origin' });
  return csrfToken();
}

const csrfMiddleware: Middleware = {
  async onRequest({ request }) {
    if (SAFE_METHODS.has(request.method.toUpperCase())) return request;
    const token = await ensureCsrfCookie();
    if (token) request.headers.set(CSRF_HEADER, token);
    return request;
  },
};

/** The one API client: session cookie auth, CSRF header on unsafe methods. */
export const api = createClient<paths>({
  // Absolute, because openapi-fetch builds a Request, and Request needs one outside a browser (tests).
  baseUrl: window.location.origin,
  credentials: 'same-origin',
  headers: { Accept: 'application/json' },
  // Looked up at call time, not captured once, so tests can replace fetch at the edge.
  fetch: (request) => globalThis.fetch(request),
});
api.use(csrfMiddleware);
