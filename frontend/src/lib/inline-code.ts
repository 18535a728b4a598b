/**
 * The engine's and the server's sentences mark commands with backticks ("upload `ethtool IFACE`"): each
 * pair becomes a `<code>`, an unpaired backtick stays as it is. Every piece is a React text node, so nothing in
 * the text is ever read as HTML.
 */
export function splitInlineCode(text: string): { code: boolean; text: string }[] {
  const parts = text.split('`');
  // An odd number of pieces means the backticks pair up; otherwise the last one is unpaired and stays text.
  const paired = parts.length % 2 === 1;
  const pieces: { code: boolean; text: string }[] = [];
  parts.forEach((part, i) => {
    const lastUnpaired = !paired && i === parts.length - 1;
    const code = i % 2 === 1 && !lastUnpaired;
    const piece = lastUnpaired ? `\`${part}` : part;
    if (piece === '') return;
    const previous = pieces.at(-1);
    if (previous && !previous.code && !code) previous.text += piece;
    else pieces.push({ code, text: piece });
  });
  return pieces;
}

/** The text without its backticks, for a tooltip or a label (where no markup can go). */
export function withoutBackticks(text: string): string {
  return splitInlineCode(text)
    .map((piece) => piece.text)
    .join('');
}
