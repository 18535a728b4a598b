/** Reads one cookie by name; `undefined` when it is not set. */
export function readCookie(name: string, cookieString: string = document.cookie): string | undefined {
  for (const part of cookieString.split(';')) {
    const eq = part.indexOf('=');
    if (eq === -1) continue;
    if (part.slice(0, eq).trim() === name) {
      return decodeURIComponent(part.slice(eq + 1).trim());
    }
  }
  return undefined;
}

/** Django's CSRF cookie; its value goes back in the `X-CSRFToken` header on unsafe requests. */
export const CSRF_COOKIE = 'csrftoken';
export const CSRF_HEADER = 'X-CSRFToken';

export function csrfToken(): string | undefined {
  return readCookie(CSRF_COOKIE);
}
