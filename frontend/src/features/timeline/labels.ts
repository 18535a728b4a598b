import type { EventKind, Layer } from '@/api/types';

export const EVENT_KIND_LABEL: Record<EventKind, string> = {
  incident_opened: 'opened',
  incident_updated: 'updated',
  evidence_uploaded: 'upload',
  evidence_changed: 'evidence',
  analysis_started: 'analysis',
  analysis_finished: 'analysis',
  analysis_failed: 'analysis failed',
  finding: 'finding',
  note: 'note',
  verdict_changed: 'verdict',
  bisect_started: 'bisect',
  bisect_step: 'bisect step',
  bisect_finished: 'bisect',
  bisect_failed: 'bisect failed',
  bisect_cancelled: 'bisect cancelled',
  bisect_scheduled: 'bisect schedule',
};

export const LAYER_LABEL: Record<Layer, string> = {
  neighbours: 'Neighbours',
  network: 'Network',
  application: 'Application',
  kernel: 'Kernel',
};
