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

/** The packet list of a capture's connection, from packet `start` and/or within a time range (epoch seconds). */
export function packetsPath(
  incidentId: number,
  evidenceId: number,
  connId: number | string,
  options: { start?: number | undefined; time?: readonly [number, number] | undefined } = {},
): string {
  const path = `/incidents/${incidentId}/evidence/${evidenceId}/connections/${String(connId)}/packets`;
  const query = new URLSearchParams();
  if (options.start !== undefined) query.set('start', String(options.start));
  if (options.time) {
    query.set('from', String(options.time[0]));
    query.set('to', String(options.time[1]));
  }
  const text = query.toString();
  return text ? `${path}?${text}` : path;
}
