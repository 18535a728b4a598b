import { type SubmitEvent, useId, useState } from 'react';

import { ErrorMessage } from '@/components/error-message';
import type { Incident } from '@/api/types';
import { datetimeLocalToIso, formatDateTime, toDatetimeLocal } from '@/lib/format';

import { useUpdateIncident } from '../api/incidents-api';
import { STATUS_LABEL, STATUSES } from '../labels';
import { SeverityBadge } from './severity-badge';

const localValue = (iso: string | null) => (iso ? toDatetimeLocal(new Date(iso)) : '');

/** The impact window as the team states it: start and end edited in place, saved together. */
function ImpactWindow({ incident }: { incident: Incident }) {
  const update = useUpdateIncident(incident.id);
  const id = useId();
  const [start, setStart] = useState(localValue(incident.impact_started_at));
  const [end, setEnd] = useState(localValue(incident.impact_ended_at));
  const dirty = start !== localValue(incident.impact_started_at) || end !== localValue(incident.impact_ended_at);

  const submit = (event: SubmitEvent<HTMLFormElement>) => {
    event.preventDefault();
    update.mutate({
      impact_started_at: start ? (datetimeLocalToIso(start) ?? null) : null,
      impact_ended_at: end ? (datetimeLocalToIso(end) ?? null) : null,
    });
  };

  return (
    <form className="impact-window" onSubmit={submit} aria-label="Impact window">
      <span className="impact-window__label">Impact</span>
      <label className="visually-hidden" htmlFor={`${id}-start`}>
        Impact started
      </label>
      <input
        id={`${id}-start`}
        type="datetime-local"
        value={start}
        onChange={(e) => {
          setStart(e.target.value);
        }}
      />
      <span aria-hidden="true">→</span>
      <label className="visually-hidden" htmlFor={`${id}-end`}>
        Impact ended
      </label>
      <input
        id={`${id}-end`}
        type="datetime-local"
        value={end}
        onChange={(e) => {
          setEnd(e.target.value);
        }}
      />
      {!end && <span className="muted small">{start ? 'still going on' : 'not stated'}</span>}
      {dirty && (
        <button type="submit" className="button button--small" disabled={update.isPending}>
          Save impact window
        </button>
      )}
      {update.isError && <ErrorMessage>Could not save the impact window: {update.error.message}</ErrorMessage>}
    </form>
  );
}

/** Title, severity, team, status, owner and impact window: the state of the incident in two lines. */
export function IncidentHeader({ incident }: { incident: Incident }) {
  const update = useUpdateIncident(incident.id);
  const id = useId();
  return (
    <header className="incident-header">
      <div className="incident-header__title">
        <SeverityBadge severity={incident.severity} />
        <h1>{incident.title}</h1>
      </div>
      <div className="incident-header__meta">
        <span>
          {incident.team.name} · started{' '}
          <time dateTime={incident.started_at}>{formatDateTime(incident.started_at)}</time> · opened by{' '}
          {incident.created_by}
        </span>
      </div>
      <div className="incident-header__state">
        <div className="field field--inline">
          <label htmlFor={`${id}-status`}>Status</label>
          <select
            id={`${id}-status`}
            value={incident.status}
            disabled={update.isPending}
            onChange={(e) => {
              const status = STATUSES.find((s) => s === e.target.value);
              if (status) update.mutate({ status });
            }}
          >
            {STATUSES.map((s) => (
              <option key={s} value={s}>
                {STATUS_LABEL[s]}
              </option>
            ))}
          </select>
        </div>
        <div className="field field--inline">
          <label htmlFor={`${id}-owner`}>Owner</label>
          <select
            id={`${id}-owner`}
            value={incident.owner ?? ''}
            disabled={update.isPending}
            onChange={(e) => {
              update.mutate({ owner: e.target.value || null });
            }}
          >
            <option value="">Nobody yet</option>
            {incident.members.map((m) => (
              <option key={m} value={m}>
                {m}
              </option>
            ))}
          </select>
        </div>
        <ImpactWindow
          key={`${incident.impact_started_at ?? ''}|${incident.impact_ended_at ?? ''}`}
          incident={incident}
        />
      </div>
      {incident.symptom && <p className="incident-header__symptom">{incident.symptom}</p>}
      {update.isError && <ErrorMessage>Could not change the incident: {update.error.message}</ErrorMessage>}
    </header>
  );
}
