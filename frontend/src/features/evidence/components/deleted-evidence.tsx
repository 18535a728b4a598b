import { useQuery } from '@tanstack/react-query';

import { ErrorMessage } from '@/components/error-message';
import { formatBytes, formatDateTime } from '@/lib/format';

import { deletedEvidenceQueryOptions, useRestoreEvidence } from '../api/evidence-api';

/** Files the team deleted that can still be brought back, folded under the cards; nothing when there are none. */
export function DeletedEvidence({ incidentId }: { incidentId: number }) {
  const deleted = useQuery(deletedEvidenceQueryOptions(incidentId));
  const restore = useRestoreEvidence(incidentId);
  if (deleted.isError) return <ErrorMessage>Could not load the deleted files: {deleted.error.message}</ErrorMessage>;
  const files = deleted.data ?? [];
  if (files.length === 0) return null;
  return (
    <details className="deleted-evidence">
      <summary>Deleted files ({files.length}) — restorable until they are purged</summary>
      <ul>
        {files.map((file) => (
          <li key={file.id}>
            <span className="mono">{file.filename}</span>{' '}
            <span className="muted small">
              {formatBytes(file.size)}, deleted by {file.deleted_by ?? 'someone'} on {formatDateTime(file.deleted_at)};
              purged on {formatDateTime(file.purge_at)}
            </span>{' '}
            <button
              type="button"
              className="button button--small"
              disabled={restore.isPending}
              onClick={() => {
                restore.mutate(file.id);
              }}
            >
              Restore
            </button>
          </li>
        ))}
      </ul>
      {restore.isError && <ErrorMessage>Could not restore it: {restore.error.message}</ErrorMessage>}
    </details>
  );
}
