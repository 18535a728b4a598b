import { useQuery } from '@tanstack/react-query';
import { useId } from 'react';
import { Link } from 'react-router-dom';

import { Badge } from '@/components/badge';
import { ErrorMessage } from '@/components/error-message';
import { Loading } from '@/components/loading';
import { Time } from '@/components/time';
import { VerdictStrip } from '@/components/verdict-strip';
import type { IncidentStatus } from '@/api/types';

import { incidentsQueryOptions } from '../api/incidents-api';
import { STATUS_LABEL, STATUS_TONE, STATUSES } from '../labels';
import { SeverityBadge } from './severity-badge';

interface IncidentListProps {
  status: IncidentStatus | undefined;
  onStatusChange: (status: IncidentStatus | undefined) => void;
}

/** The incidents of the user's teams, newest first, filtered by status. */
export function IncidentList({ status, onStatusChange }: IncidentListProps) {
  const incidents = useQuery(incidentsQueryOptions(status));
  const id = useId();

  return (
    <section aria-labelledby={`${id}-title`}>
      <div className="section-head">
        <h1 id={`${id}-title`}>Incidents</h1>
        <div className="field field--inline">
          <label htmlFor={`${id}-status`}>Status</label>
          <select
            id={`${id}-status`}
            value={status ?? 'all'}
            onChange={(e) => {
              const value = e.target.value;
              onStatusChange(STATUSES.find((s) => s === value));
            }}
          >
            <option value="all">All</option>
            {STATUSES.map((s) => (
              <option key={s} value={s}>
                {STATUS_LABEL[s]}
              </option>
            ))}
          </select>
        </div>
        <Link className="button button--primary" to="/incidents/new">
          New incident
        </Link>
      </div>
      {incidents.isPending && <Loading label="Loading incidents…" />}
      {incidents.isError && <ErrorMessage>Could not load incidents: {incidents.error.message}</ErrorMessage>}
      {incidents.data?.length === 0 && (
        <p className="muted">{status ? `No ${STATUS_LABEL[status].toLowerCase()} incidents.` : 'No incidents yet.'}</p>
      )}
      {incidents.data && incidents.data.length > 0 && (
        <table className="table">
          <thead>
            <tr>
              <th scope="col">Incident</th>
              <th scope="col">Severity</th>
              <th scope="col">Status</th>
              <th scope="col">Checklist</th>
              <th scope="col">Team</th>
              <th scope="col">Started</th>
              <th scope="col" className="num">
                Evidence
              </th>
            </tr>
          </thead>
          <tbody>
            {incidents.data.map((incident) => (
              <tr key={incident.id}>
                <td>
                  <Link to={`/incidents/${String(incident.id)}`}>{incident.title}</Link>
                  {incident.symptom && <div className="muted clamp">{incident.symptom}</div>}
                </td>
                <td>
                  <SeverityBadge severity={incident.severity} />
                </td>
                <td>
                  <Badge tone={STATUS_TONE[incident.status]}>{STATUS_LABEL[incident.status]}</Badge>
                </td>
                <td>
                  <VerdictStrip verdicts={incident.verdicts} />
                </td>
                <td>{incident.team.name}</td>
                <td>
                  <Time iso={incident.started_at} />
                </td>
                <td className="num">{incident.evidence_count}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
