/** The first sentence of a paragraph: the strip has room for one line, the step below holds the rest. */
export function firstSentence(text: string): string {
  const trimmed = text.trim();
  const end = trimmed.search(/[.!?](\s|$)/);
  return end === -1 ? trimmed : trimmed.slice(0, end + 1);
}

/** The anchor of a checklist step, which the verdict strip links to. */
export function stepAnchorId(layer: string): string {
  return `step-${layer}`;
}
