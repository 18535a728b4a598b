import { ensureCsrfCookie } from '@/api/client';
import { ApiError, detailOf } from '@/api/errors';
import { UPLOAD_PATH, type Evidence } from '@/api/types';
import { CSRF_HEADER } from '@/lib/cookies';

export interface UploadProgress {
  loaded: number;
  total: number;
}

export interface UploadEvidenceOptions {
  incidentId: number;
  file: File;
  onProgress?: (progress: UploadProgress) => void;
  signal?: AbortSignal;
}

/** The upload was cancelled by the user (the AbortSignal fired). */
export class UploadCancelledError extends Error {
  constructor() {
    super('Upload cancelled');
    this.name = 'UploadCancelledError';
  }
}

export function uploadUrl(incidentId: number, filename: string): string {
  const query = new URLSearchParams({ filename }).toString();
  return `${UPLOAD_PATH.replace('{incident_id}', String(incidentId))}?${query}`;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function uploadErrorMessage(status: number, body: unknown): string {
  const detail = detailOf(body);
  if (status === 413) return detail ?? 'The file is larger than the server accepts.';
  if (status === 0) return 'The connection to the server was lost during the upload.';
  return detail ?? `Upload failed (HTTP ${status}).`;
}

/**
 * Sends the raw file as the request body. This uses XMLHttpRequest rather than fetch because only
 * XHR reports upload progress (`xhr.upload.onprogress`), which drives the progress bar; the body
 * is the File itself, so the browser streams it from disk and never holds it in memory.
 */
export async function uploadEvidence({
  incidentId,
  file,
  onProgress,
  signal,
}: UploadEvidenceOptions): Promise<Evidence> {
  if (signal?.aborted) throw new UploadCancelledError();
  const csrf = await ensureCsrfCookie();

  return new Promise<Evidence>((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('POST', uploadUrl(incidentId, file.name));
    xhr.setRequestHeader('Content-Type', 'application/octet-stream');
    xhr.setRequestHeader('Accept', 'application/json');
    if (csrf) xhr.setRequestHeader(CSRF_HEADER, csrf);

    const onAbortSignal = () => {
      xhr.abort();
    };
    signal?.addEventListener('abort', onAbortSignal, { once: true });
    const cleanup = () => {
      signal?.removeEventListener('abort', onAbortSignal);
    };

    xhr.upload.onprogress = (event) => {
      onProgress?.({ loaded: event.loaded, total: event.lengthComputable ? event.total : file.size });
    };
    xhr.onload = () => {
      cleanup();
      const body = parseJson(xhr.responseText);
      if (xhr.status >= 200 && xhr.status < 300 && typeof body === 'object' && body !== null) {
        onProgress?.({ loaded: file.size, total: file.size });
        // The body's shape is the schema's upload response (checked by the backend's schema tests);
        // XHR cannot carry openapi-fetch's inferred type, so it is named here.
        resolve(body as Evidence);
        return;
      }
      reject(new ApiError(xhr.status, body, uploadErrorMessage(xhr.status, body)));
    };
    xhr.onerror = () => {
      cleanup();
      reject(new ApiError(0, undefined, uploadErrorMessage(0, undefined)));
    };
    xhr.onabort = () => {
      cleanup();
      reject(new UploadCancelledError());
    };
    xhr.send(file);
  });
}
