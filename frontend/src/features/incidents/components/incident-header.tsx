import { useId } from 'react';

import { ErrorMessage } from '@/components/error-message';
import type { Incident } from '@/api/types';
import { formatDateTime } from '@/lib/format';

import { useUpdateIncident } from '../api/incidents-api';
import { STATUS_LABEL, STATUSES } from '../labels';
import { SeverityBadge } from './severity-badge';

/** Title, severity, team, start time and the status select that moves the incident along. */
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
          #{incident.id} · {incident.team.name} · started{' '}
          <time dateTime={incident.started_at}>{formatDateTime(incident.started_at)}</time> · opened by{' '}
          {incident.created_by}
        </span>
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
      </div>
      {incident.symptom && <p className="incident-header__symptom">{incident.symptom}</p>}
      {update.isError && <ErrorMessage>Could not change the status: {update.error.message}</ErrorMessage>}
    </header>
  );
}
