import { useQuery } from '@tanstack/react-query';
import { useEffect, useId, useRef } from 'react';
import { useNavigate } from 'react-router-dom';

import { ErrorMessage } from '@/components/error-message';
import { Loading } from '@/components/loading';
import type { Evidence } from '@/api/types';

import { bisectListQueryOptions } from '../api/bisects-api';
import { bisectPath } from '../lib/paths';
import { BisectList } from './bisect-list';
import { ScheduleSection } from './schedule-section';
import { StartBisectPanel } from './start-bisect-panel';

interface BisectsSectionProps {
  incidentId: number;
  /** The incident's evidence (undefined while it loads): kernel versions in it prefill the start form. */
  evidence: readonly Evidence[] | undefined;
  /** Whether the start form is open; the app opens it from the checklist's kernel step too. */
  formOpen: boolean;
  onFormOpenChange: (open: boolean) => void;
  /** Only the team's owners may start, schedule or retry a bisect (its reproducer runs on a worker). */
  canRunBisects: boolean;
}

/** The incident's bisect jobs, the form that starts one, and the schedules that start them later. */
export function BisectsSection({
  incidentId,
  evidence,
  formOpen,
  onFormOpenChange,
  canRunBisects,
}: BisectsSectionProps) {
  const jobs = useQuery(bisectListQueryOptions(incidentId));
  const navigate = useNavigate();
  const id = useId();
  const formBox = useRef<HTMLDivElement>(null);

  // Opening the form (here or from the checklist) brings it into view with the first field focused.
  useEffect(() => {
    if (!formOpen) return;
    const box = formBox.current;
    box?.scrollIntoView({ block: 'start', behavior: 'smooth' });
    box?.querySelector<HTMLElement>('input, select, textarea')?.focus({ preventScroll: true });
  }, [formOpen, jobs.isPending]);

  return (
    <section className="section" aria-labelledby={`${id}-title`} id="bisects">
      <div className="section-head section-head--small">
        <h2 id={`${id}-title`}>Bisects</h2>
        {!formOpen && canRunBisects && (
          <button
            type="button"
            className="button button--primary button--small"
            onClick={() => {
              onFormOpenChange(true);
            }}
          >
            Start a bisect
          </button>
        )}
      </div>
      {formOpen && (
        <div ref={formBox} className="bisect-form-box">
          <StartBisectPanel
            incidentId={incidentId}
            evidence={evidence}
            repo={jobs.data?.[0]?.repo}
            onStarted={(job) => {
              onFormOpenChange(false);
              void navigate(bisectPath(incidentId, job.id));
            }}
            onCancel={() => {
              onFormOpenChange(false);
            }}
          />
        </div>
      )}
      {!canRunBisects && (
        <p className="muted small">
          Only the team's owners can start, schedule or retry a bisect: its reproducer runs as a command on the workers.
        </p>
      )}
      {jobs.isPending && <Loading label="Loading bisects…" />}
      {jobs.isError && <ErrorMessage>Could not load the bisects: {jobs.error.message}</ErrorMessage>}
      {jobs.data?.length === 0 && !formOpen && (
        <p className="muted">
          No bisect yet. When the kernel is the suspect, bisect between a good and a bad version with a reproducer.
        </p>
      )}
      {jobs.data && jobs.data.length > 0 && <BisectList incidentId={incidentId} jobs={jobs.data} />}
      <ScheduleSection incidentId={incidentId} canSchedule={canRunBisects} />
    </section>
  );
}
