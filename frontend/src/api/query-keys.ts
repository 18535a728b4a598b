/**
 * The root of every query about one incident. Features hang their own keys under it, so the app can
 * refresh everything about an incident at once (for example when the live timeline brings news).
 */
export const incidentScopeKey = (incidentId: number) => ['incidents', 'detail', incidentId] as const;
