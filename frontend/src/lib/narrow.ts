/** Narrows a string to one of a known set of values; `undefined` when it is none of them. */
export function oneOf<T extends string>(values: readonly T[], value: string | null | undefined): T | undefined {
  return values.find((v) => v === value);
}

/** A plain JSON object (not null, not an array). */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
