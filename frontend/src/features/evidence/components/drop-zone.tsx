import { type DragEvent, useId, useState } from 'react';

/**
 * Where files are dropped; the file input (labelled "Upload evidence") does the same for keyboard
 * and screen-reader users, and is what end-to-end tests drive.
 */
export function DropZone({ onFiles, disabled = false }: { onFiles: (files: File[]) => void; disabled?: boolean }) {
  const [over, setOver] = useState(false);
  const id = useId();

  const onDragOver = (event: DragEvent<HTMLDivElement>) => {
    if (!event.dataTransfer.types.includes('Files')) return;
    event.preventDefault();
    event.dataTransfer.dropEffect = 'copy';
    setOver(true);
  };
  const onDrop = (event: DragEvent<HTMLDivElement>) => {
    event.preventDefault();
    setOver(false);
    const files = Array.from(event.dataTransfer.files);
    if (files.length > 0 && !disabled) onFiles(files);
  };

  return (
    <div
      className={`drop-zone${over ? ' drop-zone--over' : ''}`}
      onDragOver={onDragOver}
      onDragEnter={onDragOver}
      onDragLeave={() => {
        setOver(false);
      }}
      onDrop={onDrop}
      data-testid="drop-zone"
    >
      <p>
        Drop packet captures, strace output, <code>uname -r</code>, <code>nstat</code> or <code>ss</code> snapshots
        here, or
      </p>
      <label htmlFor={`${id}-input`} className="button">
        Upload evidence
      </label>
      <input
        id={`${id}-input`}
        className="visually-hidden"
        type="file"
        multiple
        disabled={disabled}
        onChange={(event) => {
          const files = Array.from(event.target.files ?? []);
          // Reset so choosing the same file again still fires a change.
          event.target.value = '';
          if (files.length > 0) onFiles(files);
        }}
      />
      <p className="muted small">The kind is detected from the content, not the file name.</p>
    </div>
  );
}
