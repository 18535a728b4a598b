import { useQuery } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { Link } from 'react-router-dom';

import { Badge } from '@/components/badge';
import { ErrorMessage } from '@/components/error-message';
import type { BisectSchedule, ScheduleUpdate } from '@/api/types';
import { formatDateTime } from '@/lib/format';

import { scheduleListQueryOptions, useDeleteSchedule, useUpdateSchedule } from '../api/schedules-api';
import { bisectPath, shortCommit } from '../lib/paths';
import { ScheduleForm } from './schedule-form';

/** When the schedule fires, in words. */
function when(schedule: BisectSchedule): string {
  switch (schedule.kind) {
    case 'once':
      return `once at ${formatDateTime(schedule.start_at)}, ${schedule.good}..${schedule.bad}`;
    case 'nightly':
      return `nightly ${schedule.window_start?.slice(0, 5) ?? '?'}–${schedule.window_end?.slice(0, 5) ?? '?'} UTC, ${schedule.good}..${schedule.bad}`;
    case 'watch':
      return `every ${schedule.interval_minutes} min, ${schedule.tag_pattern ? `newest tag ${schedule.tag_pattern}` : `branch ${schedule.branch}`}`;
  }
}

/**
 * A PATCH that changes only `enabled`. The schema marks every field with a default as required in
 * the PATCH body too, so the schedule's current values go along unchanged.
 */
function withEnabled(schedule: BisectSchedule, enabled: boolean): ScheduleUpdate {
  const { path, repeats, min_agreement, rule, metric, direction, step_timeout, on_inconclusive, on_error, runner } =
    schedule;
  const { env, network } = schedule;
  const { good, bad, tag_pattern, branch, interval_minutes } = schedule;
  return {
    path,
    repeats,
    min_agreement,
    rule,
    metric,
    direction,
    step_timeout,
    on_inconclusive,
    on_error,
    runner,
    env,
    network,
    good,
    bad,
    tag_pattern,
    branch,
    interval_minutes,
    enabled,
  };
}

interface ScheduleItemProps {
  incidentId: number;
  schedule: BisectSchedule;
  /** Pausing and resuming change what workers will run: owners only. */
  canSchedule: boolean;
}

function ScheduleItem({ incidentId, schedule, canSchedule }: ScheduleItemProps) {
  const update = useUpdateSchedule(incidentId);
  const remove = useDeleteSchedule(incidentId);
  const last = schedule.firings[0];
  const error = update.error ?? remove.error;
  return (
    <li className="schedule" aria-label={schedule.name}>
      <div className="schedule__head">
        <strong>{schedule.name}</strong>
        {!schedule.enabled && <Badge>Paused</Badge>}
        {schedule.kind === 'watch' && schedule.state !== 'unknown' && (
          <Badge tone={schedule.state === 'good' ? 'good' : 'bad'}>Last check: {schedule.state}</Badge>
        )}
        <span className="schedule__actions">
          {canSchedule && (
            <button
              type="button"
              className="button button--small"
              disabled={update.isPending}
              onClick={() => {
                update.mutate({ scheduleId: schedule.id, changes: withEnabled(schedule, !schedule.enabled) });
              }}
            >
              {schedule.enabled ? 'Pause' : 'Resume'}
            </button>
          )}
          <button
            type="button"
            className="button button--small"
            disabled={remove.isPending}
            onClick={() => {
              if (window.confirm(`Delete the schedule “${schedule.name}”? Bisects it started stay.`))
                remove.mutate(schedule.id);
            }}
          >
            Delete
          </button>
        </span>
      </div>
      <p className="muted small">
        {when(schedule)} · <span className="mono">{schedule.repo}</span>
        {schedule.kind === 'watch' && schedule.last_good_ref && (
          <>
            {' '}
            · last good {schedule.last_good_ref} ({shortCommit(schedule.last_good_commit)})
          </>
        )}
      </p>
      {last && (
        <p className="small">
          Last fired {formatDateTime(last.created_at)}: {last.detail || last.status}
          {last.bisect !== null && (
            <>
              {' '}
              — <Link to={bisectPath(incidentId, last.bisect)}>Bisect #{last.bisect}</Link>
            </>
          )}
        </p>
      )}
      {error && <ErrorMessage>Could not change the schedule: {error.message}</ErrorMessage>}
    </li>
  );
}

/** Schedules that start bisects later: once, in a nightly window, or when a watched ref turns bad. */
export function ScheduleSection({ incidentId, canSchedule }: { incidentId: number; canSchedule: boolean }) {
  const schedules = useQuery(scheduleListQueryOptions(incidentId));
  const [adding, setAdding] = useState(false);
  const id = useId();
  return (
    <div className="bisect-schedules" role="group" aria-labelledby={`${id}-title`}>
      <div className="section-head section-head--small">
        <h3 id={`${id}-title`}>Schedules and watches</h3>
        {!adding && canSchedule && (
          <button
            type="button"
            className="button button--small"
            onClick={() => {
              setAdding(true);
            }}
          >
            Add a schedule
          </button>
        )}
      </div>
      {adding && (
        <ScheduleForm
          incidentId={incidentId}
          onDone={() => {
            setAdding(false);
          }}
        />
      )}
      {schedules.isError && <ErrorMessage>Could not load the schedules: {schedules.error.message}</ErrorMessage>}
      {schedules.data?.length === 0 && !adding && <p className="muted small">No schedules.</p>}
      {schedules.data && schedules.data.length > 0 && (
        <ul className="schedules" aria-label="Schedules">
          {schedules.data.map((s) => (
            <ScheduleItem key={s.id} incidentId={incidentId} schedule={s} canSchedule={canSchedule} />
          ))}
        </ul>
      )}
    </div>
  );
}
