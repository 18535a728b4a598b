/**
 * Element ids that one feature renders and another links to (features do not import each other,
 * so the convention lives here).
 */

/** An evidence card on the incident page; a finding's evidence reference scrolls to it. */
export function evidenceAnchorId(evidenceId: number): string {
  return `evidence-${evidenceId}`;
}

/** A finding's card in the checklist; a suggestion links to the findings its reason cites. */
export function findingAnchorId(findingId: number): string {
  return `finding-${findingId}`;
}

/** The connection detail page of a capture's connection, optionally shading a time range (epoch seconds). */
export function connectionPath(
  incidentId: number,
  evidenceId: number,
  connId: number | string,
  time?: readonly [number, number],
): string {
  const path = `/incidents/${incidentId}/evidence/${evidenceId}/connections/${String(connId)}`;
  return time ? `${path}?${new URLSearchParams({ from: String(time[0]), to: String(time[1]) }).toString()}` : path;
}
