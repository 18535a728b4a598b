import { isRecord } from '@/lib/narrow';

/** The interfaces a counters snapshot holds, as its analysis summary names them. */
export function interfacesOf(summary: unknown): string[] {
  if (!isRecord(summary) || !isRecord(summary.interfaces)) return [];
  return Object.keys(summary.interfaces).sort();
}
