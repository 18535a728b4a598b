import { ApiError, detailOf, fieldErrors } from '@/api/errors';
import { isRecord } from '@/lib/narrow';

/** Messages per field name, as DRF's 400 bodies give them (`{field: ["..."]}`). */
export type FieldErrors = Partial<Record<string, string[]>>;

/**
 * Splits a failed mutation into per-field messages for the fields the form shows and one message for
 * the rest (non-field errors, unknown fields, a 409 or a network error), so nothing the API said is lost.
 */
export function splitApiErrors(
  error: unknown,
  shown: readonly string[],
): { fields: FieldErrors; other: string | null } {
  if (!(error instanceof ApiError)) return { fields: {}, other: error instanceof Error ? error.message : null };
  const body = error.body;
  if (!isRecord(body) || detailOf(body) !== undefined) return { fields: {}, other: error.message };
  const fields: FieldErrors = {};
  const rest: string[] = [];
  for (const name of Object.keys(body)) {
    const messages = fieldErrors(body, name);
    if (shown.includes(name)) fields[name] = messages;
    else rest.push(name === 'non_field_errors' ? messages.join(' ') : `${name}: ${messages.join(' ')}`);
  }
  return { fields, other: rest.length > 0 ? rest.join(' ') : null };
}

/** The errors without one field's (after the reader edited it). */
export function withoutField(errors: FieldErrors, name: string): FieldErrors {
  if (!errors[name]) return errors;
  return Object.fromEntries(Object.entries(errors).filter(([key]) => key !== name));
}

/** Parses a form's number input; `undefined` when it is empty or not a number. */
export function parseNumber(value: string): number | undefined {
  if (value.trim() === '') return undefined;
  const n = Number(value);
  return Number.isFinite(n) ? n : undefined;
}
