import { useQuery } from '@tanstack/react-query';
import { useId } from 'react';
import { Link } from 'react-router-dom';

import { ErrorMessage } from '@/components/error-message';
import { Loading } from '@/components/loading';
import type { Evidence } from '@/api/types';
import { curlUploadCommand } from '@/lib/curl';

import { evidenceListQueryOptions } from '../api/evidence-api';
import { useUploads } from '../hooks/use-uploads';
import { DeletedEvidence } from './deleted-evidence';
import { DropZone } from './drop-zone';
import { EvidenceCard } from './evidence-card';
import { UploadRow } from './upload-row';

interface EvidenceSectionProps {
  incidentId: number;
  onUploaded?: (evidence: Evidence) => void;
}

/** Upload (drop zone + file input), uploads in flight, a card per piece of evidence, the deleted files. */
export function EvidenceSection({ incidentId, onUploaded }: EvidenceSectionProps) {
  const evidence = useQuery(evidenceListQueryOptions(incidentId));
  const { uploads, start, cancel, dismiss } = useUploads({ incidentId, onUploaded });
  const id = useId();

  return (
    <section className="section" aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>Evidence</h2>
      <DropZone
        onFiles={(files) => {
          files.forEach(start);
        }}
      />
      {uploads.length > 0 && (
        <ul className="uploads" aria-label="Uploads in progress">
          {uploads.map((upload) => (
            <UploadRow
              key={upload.key}
              upload={upload}
              onCancel={() => {
                cancel(upload.key);
              }}
              onDismiss={() => {
                dismiss(upload.key);
              }}
            />
          ))}
        </ul>
      )}
      {evidence.isPending && <Loading label="Loading evidence…" />}
      {evidence.isError && <ErrorMessage>Could not load evidence: {evidence.error.message}</ErrorMessage>}
      {evidence.data?.length === 0 && uploads.length === 0 && <p className="muted">No evidence uploaded yet.</p>}
      {evidence.data && evidence.data.length > 0 && (
        <div className="cards">
          {evidence.data.map((item) => (
            <EvidenceCard key={item.id} evidence={item} incidentId={incidentId} />
          ))}
        </div>
      )}
      <DeletedEvidence incidentId={incidentId} />
      <details className="shell-hint">
        <summary>Upload from a shell</summary>
        <pre className="command">
          <code>{curlUploadCommand({ origin: window.location.origin, token: '<token>', incidentId })}</code>
        </pre>
        <p className="muted small">
          Get a token on the <Link to="/api-token">API token</Link> page.
        </p>
      </details>
    </section>
  );
}
