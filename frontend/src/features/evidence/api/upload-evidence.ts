import { Upload, type DetailedError } from 'tus-js-client';

import { api, ensureCsrfCookie } from '@/api/client';
import { ApiError, detailOf, unwrap } from '@/api/errors';
import { UPLOADS_PATH, type Evidence } from '@/api/types';
import { CSRF_HEADER } from '@/lib/cookies';

export interface UploadProgress {
  loaded: number;
  total: number;
}

export interface UploadEvidenceOptions {
  incidentId: number;
  file: File;
  onProgress?: (progress: UploadProgress) => void;
  /** The connection dropped (or the server was busy): the upload resumes from where the server kept it. */
  onResuming?: (attempt: number) => void;
  signal?: AbortSignal;
}

/** The upload was cancelled by the user (the AbortSignal fired). */
export class UploadCancelledError extends Error {
  constructor() {
    super('Upload cancelled');
    this.name = 'UploadCancelledError';
  }
}

/**
 * Waits between attempts to resume (milliseconds): a dropped connection is retried at once, then with a
 * backoff that reaches a minute, so a laptop that loses Wi-Fi for a while still finishes its upload.
 */
export const RETRY_DELAYS = [0, 1000, 3000, 5000, 10000, 20000, 30000, 60000, 60000, 60000];

export function uploadsUrl(incidentId: number): string {
  // Absolute: tus resolves the upload's Location against it.
  const path = UPLOADS_PATH.replace('{incident_id}', String(incidentId));
  return new URL(path, window.location.origin).toString();
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** Whether to try again: a lost connection, a conflict about the offset, a busy upload or a passing server error. */
export function worthRetrying(status: number): boolean {
  return status === 0 || status === 409 || status === 423 || (status >= 500 && status !== 507);
}

function uploadError(error: Error | DetailedError): ApiError {
  const response = 'originalResponse' in error ? error.originalResponse : null;
  const status = response ? response.getStatus() : 0;
  const body = response ? parseJson(response.getBody()) : undefined;
  if (status === 0) return new ApiError(0, undefined, 'The connection to the server was lost during the upload.');
  const detail = detailOf(body);
  if (status === 413) return new ApiError(status, body, detail ?? 'The file is larger than the server accepts.');
  return new ApiError(status, body, detail ?? `Upload failed (HTTP ${String(status)}).`);
}

/**
 * Sends the file with the tus resumable-upload protocol (docs/decisions/0009): the server keeps what arrived in
 * whole parts, so a dropped connection resumes from the last part instead of starting again, and a page reload
 * resumes the same file from where it stopped (the upload's URL is remembered in localStorage until it is done).
 * tus-js-client sends the File itself (the browser streams it from disk) with XMLHttpRequest, whose upload
 * progress events drive the progress bar.
 */
export async function uploadEvidence({
  incidentId,
  file,
  onProgress,
  onResuming,
  signal,
}: UploadEvidenceOptions): Promise<Evidence> {
  if (signal?.aborted) throw new UploadCancelledError();
  const csrf = await ensureCsrfCookie();

  const uploadUrl = await new Promise<string>((resolve, reject) => {
    const onAbortSignal = () => {
      signal?.removeEventListener('abort', onAbortSignal);
      // Termination: the server drops what it kept and frees the team's quota.
      void upload.abort(true).catch(() => undefined);
      reject(new UploadCancelledError());
    };
    const upload = new Upload(file, {
      endpoint: uploadsUrl(incidentId),
      metadata: { filename: file.name, filetype: file.type },
      headers: csrf ? { [CSRF_HEADER]: csrf } : {},
      retryDelays: RETRY_DELAYS,
      removeFingerprintOnSuccess: true,
      onShouldRetry: (error, attempt) => {
        const status = error.originalResponse ? error.originalResponse.getStatus() : 0;
        if (!worthRetrying(status)) return false;
        onResuming?.(attempt + 1);
        return true;
      },
      onProgress: (loaded, total) => {
        onProgress?.({ loaded, total });
      },
      onSuccess: () => {
        signal?.removeEventListener('abort', onAbortSignal);
        if (upload.url) resolve(upload.url);
        else reject(new ApiError(0, undefined, 'The server did not say where the upload went.'));
      },
      onError: (error) => {
        signal?.removeEventListener('abort', onAbortSignal);
        reject(uploadError(error));
      },
    });
    signal?.addEventListener('abort', onAbortSignal, { once: true });
    void upload.findPreviousUploads().then((previous) => {
      const same = previous[0];
      if (same) upload.resumeFromPreviousUpload(same);
      if (!signal?.aborted) upload.start();
    });
  });

  onProgress?.({ loaded: file.size, total: file.size });
  const uploadId = new URL(uploadUrl).pathname.replace(/\/$/, '').split('/').pop() ?? '';
  const status = unwrap(
    await api.GET('/api/incidents/{incident_id}/evidence/uploads/{upload_id}/', {
      params: { path: { incident_id: incidentId, upload_id: uploadId } },
    }),
  );
  if (status.evidence === null) throw new ApiError(0, status, 'The upload finished but is not evidence yet.');
  return unwrap(
    await api.GET('/api/incidents/{incident_id}/evidence/{evidence_id}/', {
      params: { path: { incident_id: incidentId, evidence_id: status.evidence } },
    }),
  );
}
