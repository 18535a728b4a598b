import type { ReactNode } from 'react';

export type BadgeTone = 'neutral' | 'info' | 'good' | 'warn' | 'bad' | 'critical';

/** A small coloured label; the tone is decoration, the text carries the meaning. */
export function Badge({
  tone = 'neutral',
  children,
  title,
}: {
  tone?: BadgeTone;
  children: ReactNode;
  title?: string;
}) {
  return (
    <span className={`badge badge--${tone}`} title={title}>
      {children}
    </span>
  );
}
