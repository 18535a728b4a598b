import { useQueryClient } from '@tanstack/react-query';
import { useCallback, useEffect, useRef, useState } from 'react';

import type { Evidence } from '@/api/types';

import { evidenceKeys } from '../api/evidence-api';
import { UploadCancelledError, uploadEvidence } from '../api/upload-evidence';

export type UploadStatus = 'uploading' | 'resuming' | 'failed' | 'cancelled';

export interface Upload {
  key: number;
  filename: string;
  total: number;
  loaded: number;
  /** Average bytes per second since the upload started. */
  rate: number;
  status: UploadStatus;
  /** How many times the upload has had to resume after a dropped connection. */
  resumes: number;
  error?: string;
}

interface UseUploadsOptions {
  incidentId: number;
  onUploaded?: (evidence: Evidence) => void;
  /** Clock in milliseconds; tests may pass a fake one. */
  now?: () => number;
}

/**
 * The uploads in flight for one incident. A finished upload leaves the list (its evidence card takes
 * its place); one whose connection dropped says it is resuming until bytes flow again; a failed or
 * cancelled one stays until dismissed so its message can be read.
 */
export function useUploads({ incidentId, onUploaded, now = Date.now }: UseUploadsOptions) {
  const queryClient = useQueryClient();
  const [uploads, setUploads] = useState<Upload[]>([]);
  const controllers = useRef(new Map<number, AbortController>());
  const nextKey = useRef(1);

  useEffect(() => {
    const pending = controllers.current;
    return () => {
      // Leaving the page cancels what is still being sent.
      for (const controller of pending.values()) controller.abort();
      pending.clear();
    };
  }, []);

  const patch = useCallback((key: number, change: Partial<Upload>) => {
    setUploads((list) => list.map((u) => (u.key === key ? { ...u, ...change } : u)));
  }, []);

  const start = useCallback(
    (file: File) => {
      const key = nextKey.current++;
      const controller = new AbortController();
      controllers.current.set(key, controller);
      const startedAt = now();
      setUploads((list) => [
        ...list,
        { key, filename: file.name, total: file.size, loaded: 0, rate: 0, status: 'uploading', resumes: 0 },
      ]);
      uploadEvidence({
        incidentId,
        file,
        signal: controller.signal,
        onProgress: ({ loaded, total }) => {
          const seconds = (now() - startedAt) / 1000;
          patch(key, { loaded, total, rate: seconds > 0 ? loaded / seconds : 0, status: 'uploading' });
        },
        onResuming: (attempt) => {
          patch(key, { status: 'resuming', resumes: attempt });
        },
      }).then(
        (evidence) => {
          controllers.current.delete(key);
          setUploads((list) => list.filter((u) => u.key !== key));
          queryClient.setQueryData(evidenceKeys.list(incidentId), (list: Evidence[] | undefined) =>
            list && !list.some((e) => e.id === evidence.id) ? [...list, evidence] : list,
          );
          void queryClient.invalidateQueries({ queryKey: evidenceKeys.list(incidentId) });
          onUploaded?.(evidence);
        },
        (error: unknown) => {
          controllers.current.delete(key);
          if (error instanceof UploadCancelledError) {
            patch(key, { status: 'cancelled' });
          } else {
            patch(key, { status: 'failed', error: error instanceof Error ? error.message : String(error) });
          }
        },
      );
    },
    [incidentId, now, onUploaded, patch, queryClient],
  );

  const cancel = useCallback((key: number) => {
    controllers.current.get(key)?.abort();
  }, []);

  const dismiss = useCallback((key: number) => {
    setUploads((list) => list.filter((u) => u.key !== key));
  }, []);

  return { uploads, start, cancel, dismiss };
}
