import { type ReactNode, useState } from 'react';

/**
 * A native disclosure (`<details>`: Enter/Space on its summary, announced as expandable) whose content is built
 * only once opened. An incident with thirty evidence cards keeps thousands of elements of forms and numbers out
 * of the page until someone asks for them.
 */
export function Fold({
  summary,
  className,
  children,
}: {
  summary: ReactNode;
  className?: string;
  children: ReactNode;
}) {
  const [open, setOpen] = useState(false);
  return (
    <details
      className={className}
      open={open}
      onToggle={(event) => {
        setOpen(event.currentTarget.open);
      }}
    >
      <summary>{summary}</summary>
      {open && children}
    </details>
  );
}
