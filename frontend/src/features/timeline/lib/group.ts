import type { EventKind, Layer, TimelineEvent } from '@/api/types';

/** What a reader filters by: the sort of thing that happened. */
export type EventCategory = 'notes' | 'files' | 'findings' | 'verdicts' | 'bisects' | 'incident';

export const CATEGORY_OF: Record<EventKind, EventCategory> = {
  incident_opened: 'incident',
  incident_updated: 'incident',
  evidence_uploaded: 'files',
  evidence_changed: 'files',
  analysis_started: 'files',
  analysis_finished: 'files',
  analysis_failed: 'files',
  finding: 'findings',
  note: 'notes',
  verdict_changed: 'verdicts',
  bisect_started: 'bisects',
  bisect_step: 'bisects',
  bisect_finished: 'bisects',
  bisect_failed: 'bisects',
  bisect_cancelled: 'bisects',
  bisect_scheduled: 'bisects',
};

export const CATEGORY_LABEL: Record<EventCategory, string> = {
  notes: 'Notes',
  files: 'Uploads and analyses',
  findings: 'Findings',
  verdicts: 'Verdicts',
  bisects: 'Bisects',
  incident: 'Incident changes',
};

const LAYERS: readonly Layer[] = ['neighbours', 'network', 'application', 'kernel'];

function isLayer(value: unknown): value is Layer {
  return typeof value === 'string' && (LAYERS as readonly string[]).includes(value);
}

/** The checklist layer an event speaks about, if any: a finding's or a verdict's layer; bisects are the kernel's. */
export function layerOf(event: TimelineEvent): Layer | null {
  const data = event.data as Record<string, unknown>;
  if (isLayer(data.layer)) return data.layer;
  if (event.kind === 'finding') {
    // Older finding events say their layer only in the summary: "[network] …".
    const match = /^\[(\w+)\]/.exec(event.summary);
    return match && isLayer(match[1]) ? match[1] : null;
  }
  if (CATEGORY_OF[event.kind] === 'bisects') return 'kernel';
  return null;
}

/** A finding event's summary without the "[layer]" prefix (the layer is shown as a label). */
export function summaryText(event: TimelineEvent): string {
  return event.kind === 'finding' ? event.summary.replace(/^\[\w+\]\s*/, '') : event.summary;
}

export const AUTOMATIC = 'Whodunnet';

export function actorOf(event: TimelineEvent): string {
  return event.actor ?? AUTOMATIC;
}

export interface TimelineFilter {
  layer: Layer | 'all';
  category: EventCategory | 'all';
  actor: string;
}

export const NO_FILTER: TimelineFilter = { layer: 'all', category: 'all', actor: 'all' };

export function matches(event: TimelineEvent, filter: TimelineFilter): boolean {
  if (filter.category !== 'all' && CATEGORY_OF[event.kind] !== filter.category) return false;
  if (filter.actor !== 'all' && actorOf(event) !== filter.actor) return false;
  if (filter.layer !== 'all' && layerOf(event) !== filter.layer) return false;
  return true;
}

/** Several files' uploads, analyses and findings in a row, shown as one line that opens. */
export interface EventGroup {
  type: 'group';
  key: string;
  events: TimelineEvent[];
  files: number;
  analysed: number;
  failed: number;
  findings: number;
  uploaders: string[];
}

export type TimelineItem = { type: 'event'; event: TimelineEvent } | EventGroup;

const PIPELINE: ReadonlySet<EventKind> = new Set([
  'evidence_uploaded',
  'analysis_started',
  'analysis_finished',
  'analysis_failed',
  'finding',
]);

/** A run shorter than this stays as it is: one file's upload, start and finish read fine as three lines. */
export const GROUP_AT_LEAST = 4;

function makeGroup(run: TimelineEvent[]): EventGroup {
  const evidenceOf = (e: TimelineEvent) => (e.data as Record<string, unknown>).evidence;
  // Per file: an analysis's events name their evidence; a recomputation across the evidence names none.
  const count = (kind: EventKind) =>
    run.filter((e) => e.kind === kind && (kind === 'finding' || typeof evidenceOf(e) === 'number')).length;
  const files = new Set(run.map(evidenceOf).filter((id) => typeof id === 'number'));
  const uploaders = [...new Set(run.filter((e) => e.kind === 'evidence_uploaded').map(actorOf))];
  return {
    type: 'group',
    key: `group-${String(run[0]?.id ?? 0)}`,
    events: run,
    files: Math.max(files.size, count('evidence_uploaded')),
    analysed: count('analysis_finished'),
    failed: count('analysis_failed'),
    findings: count('finding'),
    uploaders,
  };
}

/**
 * The events as the reader sees them: a run of uploads, analyses and their findings (no note, verdict or other
 * event in between) about two files or more becomes one group; one file's events, or findings alone, stay flat.
 * Pinned events and the linked event are never folded away.
 */
export function groupEvents(events: readonly TimelineEvent[], keepOpen: (e: TimelineEvent) => boolean): TimelineItem[] {
  const items: TimelineItem[] = [];
  let run: TimelineEvent[] = [];
  const flush = () => {
    // Several files' worth: one file's upload, analysis and findings read fine as they are.
    const files = new Set(
      run.map((e) => (e.data as Record<string, unknown>).evidence).filter((id) => typeof id === 'number'),
    );
    if (run.length >= GROUP_AT_LEAST && files.size >= 2) items.push(makeGroup(run));
    else items.push(...run.map((event) => ({ type: 'event' as const, event })));
    run = [];
  };
  for (const event of events) {
    if (PIPELINE.has(event.kind) && !keepOpen(event)) {
      run.push(event);
    } else {
      flush();
      items.push({ type: 'event', event });
    }
  }
  flush();
  return items;
}

export function groupTitle(group: EventGroup): string {
  const by = group.uploaders.length > 0 ? ` uploaded by ${group.uploaders.join(', ')}` : '';
  const parts = [`${String(group.files)} file${group.files === 1 ? '' : 's'}${by}`];
  parts.push(`${String(group.analysed)} analysed`);
  if (group.failed > 0) parts.push(`${String(group.failed)} failed`);
  if (group.findings > 0) parts.push(`${String(group.findings)} finding${group.findings === 1 ? '' : 's'}`);
  return parts.join(' · ');
}

export function eventAnchor(eventId: number): string {
  return `event-${String(eventId)}`;
}

/** The address of one event: the incident page, scrolled to it. */
export function eventUrl(incidentId: number, eventId: number): string {
  return `${window.location.origin}/incidents/${String(incidentId)}#${eventAnchor(eventId)}`;
}
