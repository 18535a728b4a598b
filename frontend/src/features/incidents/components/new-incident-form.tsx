import { useQuery } from '@tanstack/react-query';
import { type SubmitEvent, useId, useState } from 'react';

import { ErrorMessage } from '@/components/error-message';
import { ApiError } from '@/api/errors';
import type { Incident, Severity } from '@/api/types';
import { datetimeLocalToIso, toDatetimeLocal } from '@/lib/format';

import { teamsQueryOptions, useCreateIncident } from '../api/incidents-api';
import { SEVERITIES, SEVERITY_LABEL } from '../labels';

function errorText(error: unknown): string {
  if (error instanceof ApiError && typeof error.body === 'object' && error.body !== null) {
    const parts = Object.entries(error.body).map(([field, messages]) => {
      const text = Array.isArray(messages) ? messages.join(' ') : String(messages);
      return field === 'detail' || field === 'non_field_errors' ? text : `${field}: ${text}`;
    });
    if (parts.length > 0) return parts.join(' ');
  }
  return error instanceof Error ? error.message : 'Could not create the incident.';
}

/** Opens an incident for one of the user's teams; `onCreated` gets the new incident. */
export function NewIncidentForm({ onCreated }: { onCreated: (incident: Incident) => void }) {
  const teams = useQuery(teamsQueryOptions());
  const create = useCreateIncident();
  const id = useId();
  const [teamChoice, setTeamChoice] = useState('');
  const [title, setTitle] = useState('');
  const [symptom, setSymptom] = useState('');
  const [severity, setSeverity] = useState<Severity>('sev3');
  const [startedAt, setStartedAt] = useState(() => toDatetimeLocal(new Date()));
  const [localError, setLocalError] = useState<string | null>(null);

  // With one team there is nothing to choose; default to the first.
  const team = teamChoice || String(teams.data?.[0]?.id ?? '');

  const submit = (event: SubmitEvent<HTMLFormElement>) => {
    event.preventDefault();
    const started = datetimeLocalToIso(startedAt);
    if (!team) {
      setLocalError('Choose a team.');
      return;
    }
    if (!title.trim()) {
      setLocalError('Give the incident a title.');
      return;
    }
    if (!started) {
      setLocalError('Enter when the incident started.');
      return;
    }
    setLocalError(null);
    create.mutate(
      { team: Number(team), title: title.trim(), symptom, severity, started_at: started },
      { onSuccess: onCreated },
    );
  };

  return (
    <form className="form" onSubmit={submit} aria-labelledby={`${id}-title`} noValidate>
      <h1 id={`${id}-title`}>New incident</h1>
      <div className="field">
        <label htmlFor={`${id}-team`}>Team</label>
        <select
          id={`${id}-team`}
          value={team}
          required
          onChange={(e) => {
            setTeamChoice(e.target.value);
          }}
        >
          {teams.data?.length === 0 && <option value="">You are in no team</option>}
          {teams.data?.map((t) => (
            <option key={t.id} value={String(t.id)}>
              {t.name}
            </option>
          ))}
        </select>
      </div>
      <div className="field">
        <label htmlFor={`${id}-name`}>Title</label>
        <input
          id={`${id}-name`}
          required
          maxLength={200}
          autoFocus
          value={title}
          onChange={(e) => {
            setTitle(e.target.value);
          }}
        />
      </div>
      <div className="field">
        <label htmlFor={`${id}-symptom`}>Symptom</label>
        <textarea
          id={`${id}-symptom`}
          rows={3}
          placeholder="What users see: timeouts from eu-west to us-east, p99 up from 40 ms to 1.2 s…"
          value={symptom}
          onChange={(e) => {
            setSymptom(e.target.value);
          }}
        />
      </div>
      <div className="form__row">
        <div className="field">
          <label htmlFor={`${id}-severity`}>Severity</label>
          <select
            id={`${id}-severity`}
            value={severity}
            onChange={(e) => {
              setSeverity(SEVERITIES.find((s) => s === e.target.value) ?? 'sev3');
            }}
          >
            {SEVERITIES.map((s) => (
              <option key={s} value={s}>
                {SEVERITY_LABEL[s]}
              </option>
            ))}
          </select>
        </div>
        <div className="field">
          <label htmlFor={`${id}-started`}>Started at</label>
          <input
            id={`${id}-started`}
            type="datetime-local"
            required
            value={startedAt}
            onChange={(e) => {
              setStartedAt(e.target.value);
            }}
          />
        </div>
      </div>
      {localError && <ErrorMessage>{localError}</ErrorMessage>}
      {create.isError && <ErrorMessage>{errorText(create.error)}</ErrorMessage>}
      <div className="form__actions">
        {/* Until the teams have loaded there is nothing to create the incident for. */}
        <button type="submit" className="button button--primary" disabled={create.isPending || !teams.data}>
          {create.isPending ? 'Creating…' : 'Create incident'}
        </button>
        {teams.isPending && <span className="muted small">Loading your teams…</span>}
        {teams.isError && <ErrorMessage>Could not load your teams: {teams.error.message}</ErrorMessage>}
      </div>
    </form>
  );
}
