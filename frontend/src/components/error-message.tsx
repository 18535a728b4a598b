import type { ReactNode } from 'react';

/** An error the user must notice: announced by screen readers (role="alert"). */
export function ErrorMessage({ children, id }: { children: ReactNode; id?: string }) {
  return (
    <p className="error" role="alert" id={id}>
      {children}
    </p>
  );
}
