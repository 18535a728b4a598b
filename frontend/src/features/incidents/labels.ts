import type { BadgeTone } from '@/components/badge';
import type { IncidentStatus, Severity } from '@/api/types';

export const SEVERITIES = ['sev1', 'sev2', 'sev3', 'sev4'] as const satisfies readonly Severity[];
export const STATUSES = ['open', 'mitigated', 'resolved'] as const satisfies readonly IncidentStatus[];

export const SEVERITY_LABEL: Record<Severity, string> = {
  sev1: 'SEV1 · critical',
  sev2: 'SEV2 · major',
  sev3: 'SEV3 · minor',
  sev4: 'SEV4 · low',
};

export const SEVERITY_TONE: Record<Severity, BadgeTone> = {
  sev1: 'critical',
  sev2: 'bad',
  sev3: 'warn',
  sev4: 'neutral',
};

export const STATUS_LABEL: Record<IncidentStatus, string> = {
  open: 'Investigating',
  mitigated: 'Mitigated',
  resolved: 'Resolved',
};

export const STATUS_TONE: Record<IncidentStatus, BadgeTone> = {
  open: 'bad',
  mitigated: 'warn',
  resolved: 'good',
};

export function isIncidentStatus(value: string | null): value is IncidentStatus {
  return value !== null && (STATUSES as readonly string[]).includes(value);
}
