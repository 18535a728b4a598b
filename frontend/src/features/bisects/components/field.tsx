import { type ReactElement, type ReactNode, cloneElement, useId } from 'react';

import { ErrorMessage } from '@/components/error-message';

interface FieldProps {
  label: string;
  /** One input, select or textarea; it gets the id, the hint and the error wired in. */
  children: ReactElement<{
    id?: string;
    'aria-describedby'?: string;
    'aria-invalid'?: boolean;
  }>;
  hint?: ReactNode;
  errors?: readonly string[] | undefined;
  className?: string;
}

/** A labelled control with an optional hint and the messages that say what is wrong with it. */
export function Field({ label, children, hint, errors, className }: FieldProps) {
  const id = useId();
  const hasError = errors !== undefined && errors.length > 0;
  const describedBy = [hint ? `${id}-hint` : null, hasError ? `${id}-error` : null].filter(Boolean).join(' ');
  return (
    <div className={className ? `field ${className}` : 'field'}>
      <label htmlFor={id}>{label}</label>
      {cloneElement(children, {
        id,
        'aria-describedby': describedBy || undefined,
        'aria-invalid': hasError ? true : undefined,
      })}
      {hint && (
        <p className="muted small field__hint" id={`${id}-hint`}>
          {hint}
        </p>
      )}
      {hasError && <ErrorMessage id={`${id}-error`}>{errors.join(' ')}</ErrorMessage>}
    </div>
  );
}
