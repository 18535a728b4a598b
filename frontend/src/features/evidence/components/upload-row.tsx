import { ErrorMessage } from '@/components/error-message';
import { ProgressBar } from '@/components/progress-bar';
import { formatBytes, formatRate } from '@/lib/format';

import type { Upload } from '../hooks/use-uploads';

interface UploadRowProps {
  upload: Upload;
  onCancel: () => void;
  onDismiss: () => void;
}

/** One file being sent: bytes sent of total, percent, KB/s or MB/s, and Cancel; "resuming" while a dropped connection is retried. */
export function UploadRow({ upload, onCancel, onDismiss }: UploadRowProps) {
  const percent = upload.total > 0 ? (upload.loaded / upload.total) * 100 : 0;
  const sent = `${formatBytes(upload.loaded)} of ${formatBytes(upload.total)}`;
  return (
    <li className={`upload upload--${upload.status}`} aria-label={`Upload of ${upload.filename}`}>
      <div className="upload__head">
        <span className="upload__name mono">{upload.filename}</span>
        {upload.status === 'uploading' || upload.status === 'resuming' ? (
          <button type="button" className="button button--small" onClick={onCancel}>
            Cancel
          </button>
        ) : (
          <button type="button" className="button button--small" onClick={onDismiss}>
            Dismiss
          </button>
        )}
      </div>
      {(upload.status === 'uploading' || upload.status === 'resuming') && (
        <>
          <ProgressBar
            percent={percent}
            label={`Uploading ${upload.filename}`}
            valueText={`${Math.round(percent)}% (${sent})`}
          />
          <p className="upload__stats muted">
            <span>{sent}</span> · <span>{Math.round(percent)}%</span> · <span>{formatRate(upload.rate)}</span>
          </p>
          {upload.status === 'resuming' && (
            <p className="upload__resuming" role="status">
              Connection lost: resuming where the server stopped (attempt {upload.resumes})…
            </p>
          )}
        </>
      )}
      {upload.status === 'cancelled' && <p className="muted">Upload cancelled.</p>}
      {upload.status === 'failed' && <ErrorMessage>Upload failed: {upload.error}</ErrorMessage>}
    </li>
  );
}
