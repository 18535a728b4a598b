import { useState } from 'react';

import type { Evidence } from '@/api/types';
import { ErrorMessage } from '@/components/error-message';

import { useSetCapturedAt } from '../api/evidence-api';

/** datetime-local wants local "YYYY-MM-DDTHH:MM:SS"; the API speaks ISO with a zone. */
function toLocalInput(iso: string | null): string {
  if (!iso) return '';
  const date = new Date(iso);
  const local = new Date(date.getTime() - date.getTimezoneOffset() * 60_000);
  return local.toISOString().slice(0, 19);
}

/**
 * When a counter snapshot was taken: two snapshots are paired earlier → later by it (otherwise
 * by upload order) and rates get an interval.
 */
export function CapturedAtForm({ evidence, incidentId }: { evidence: Evidence; incidentId: number }) {
  const [value, setValue] = useState(toLocalInput(evidence.provenance.taken_at.value));
  const save = useSetCapturedAt(incidentId, evidence.id);
  return (
    <form
      className="kind-correction"
      onSubmit={(event) => {
        event.preventDefault();
        save.mutate(value ? new Date(value).toISOString() : null);
      }}
    >
      <label>
        <span className="small muted">Snapshot taken at</span>
        <input
          type="datetime-local"
          step={1}
          value={value}
          onChange={(event) => {
            setValue(event.target.value);
          }}
        />
      </label>
      <button type="submit" className="button button--small" disabled={save.isPending}>
        {save.isPending ? 'Saving…' : 'Save time'}
      </button>
      {save.isError && <ErrorMessage>Could not save the time: {save.error.message}</ErrorMessage>}
    </form>
  );
}
