import { Fragment } from 'react';

import { splitInlineCode } from '@/lib/inline-code';

/** A sentence with its backticked commands as `<code>`. */
export function InlineCode({ text }: { text: string }) {
  return (
    <>
      {splitInlineCode(text).map((piece, i) =>
        piece.code ? <code key={i}>{piece.text}</code> : <Fragment key={i}>{piece.text}</Fragment>,
      )}
    </>
  );
}
