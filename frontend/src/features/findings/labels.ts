import type { BadgeTone } from '@/components/badge';
import type { FindingSeverity } from '@/api/types';
import { oneOf } from '@/lib/narrow';

/**
 * The severities the UI knows. The schema types `severity` as a plain string for now, so values are
 * narrowed with `severityOf`; anything unknown is treated as info.
 */
export const FINDING_SEVERITIES = ['high', 'medium', 'low', 'info'] as const satisfies readonly FindingSeverity[];
type KnownSeverity = (typeof FINDING_SEVERITIES)[number];

export function severityOf(value: FindingSeverity): KnownSeverity {
  return oneOf(FINDING_SEVERITIES, value) ?? 'info';
}

export const FINDING_SEVERITY_TONE: Record<KnownSeverity, BadgeTone> = {
  info: 'neutral',
  low: 'info',
  medium: 'warn',
  high: 'bad',
};

/** Most severe first. */
export const FINDING_SEVERITY_RANK: Record<KnownSeverity, number> = { high: 0, medium: 1, low: 2, info: 3 };
