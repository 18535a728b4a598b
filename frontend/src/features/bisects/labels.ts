import type { BadgeTone } from '@/components/badge';
import type { BisectStatus, MetricDirection, ScheduleKind, StepVerdict, VerdictRule } from '@/api/types';

export const BISECT_STATUS_LABEL: Record<BisectStatus, string> = {
  queued: 'Queued',
  running: 'Running',
  found: 'Found',
  ambiguous: 'Ambiguous',
  failed: 'Failed',
  cancelled: 'Cancelled',
};

export const BISECT_STATUS_TONE: Record<BisectStatus, BadgeTone> = {
  queued: 'neutral',
  running: 'info',
  found: 'good',
  ambiguous: 'warn',
  failed: 'bad',
  cancelled: 'neutral',
};

export const STEP_VERDICT_LABEL: Record<StepVerdict, string> = {
  '': 'Pending',
  good: 'Good',
  bad: 'Bad',
  skip: 'Skipped',
  error: 'Error',
  inconclusive: 'Inconclusive',
};

export const STEP_VERDICT_TONE: Record<StepVerdict, BadgeTone> = {
  '': 'neutral',
  good: 'good',
  bad: 'bad',
  skip: 'neutral',
  error: 'critical',
  inconclusive: 'warn',
};

export const RULES = ['exit_code', 'metric'] as const satisfies readonly VerdictRule[];

export const RULE_LABEL: Record<VerdictRule, string> = {
  exit_code: 'Exit code (0 good, 125 skip, 1–127 bad)',
  metric: 'Measured value against a threshold',
};

export const DIRECTIONS = ['above_is_bad', 'below_is_bad'] as const satisfies readonly MetricDirection[];

export const DIRECTION_LABEL: Record<MetricDirection, string> = {
  above_is_bad: 'Above the threshold is bad',
  below_is_bad: 'Below the threshold is bad',
};

export const SCHEDULE_KINDS = ['once', 'nightly', 'watch'] as const satisfies readonly ScheduleKind[];

export const SCHEDULE_KIND_LABEL: Record<ScheduleKind, string> = {
  once: 'Start once at a time',
  nightly: 'Start every night in a window',
  watch: 'Watch the newest tag or a branch head',
};
