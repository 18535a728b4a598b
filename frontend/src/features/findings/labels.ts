import type { BadgeTone } from '@/components/badge';
import type { FindingSeverity } from '@/api/types';

export const FINDING_SEVERITY_TONE: Record<FindingSeverity, BadgeTone> = {
  info: 'neutral',
  low: 'info',
  medium: 'warn',
  high: 'bad',
};

/** Most severe first. */
export const FINDING_SEVERITY_RANK: Record<FindingSeverity, number> = { high: 0, medium: 1, low: 2, info: 3 };
