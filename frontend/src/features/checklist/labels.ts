import type { BadgeTone } from '@/components/badge';
import type { Layer, Verdict } from '@/api/types';

/** The order the checklist is walked in: blame the neighbours, the network, the application, the kernel. */
export const LAYERS = ['neighbours', 'network', 'application', 'kernel'] as const satisfies readonly Layer[];

export const LAYER_LABEL: Record<Layer, string> = {
  neighbours: 'Neighbours',
  network: 'Network',
  application: 'Application',
  kernel: 'Kernel',
};

export const VERDICTS = ['not_looked_at', 'cleared', 'suspect', 'culprit'] as const satisfies readonly Verdict[];

export const VERDICT_LABEL: Record<Verdict, string> = {
  not_looked_at: 'Not looked at',
  cleared: 'Cleared',
  suspect: 'Suspect',
  culprit: 'Culprit',
};

export const VERDICT_TONE: Record<Verdict, BadgeTone> = {
  not_looked_at: 'neutral',
  cleared: 'good',
  suspect: 'warn',
  culprit: 'critical',
};
