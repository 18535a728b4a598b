import { useState } from 'react';

import { useEvidenceKinds } from '@/api/evidence-kinds';
import { ErrorMessage } from '@/components/error-message';
import type { Evidence } from '@/api/types';

import { useCorrectEvidenceKind } from '../api/evidence-api';

/** Correct what the content detection decided, and read the file again as that kind. */
export function KindCorrection({
  evidence,
  incidentId,
  busy,
}: {
  evidence: Evidence;
  incidentId: number;
  busy: boolean;
}) {
  const kinds = useEvidenceKinds()?.kinds ?? [];
  const known = kinds.some((k) => k.name === evidence.kind);
  // A file whose kind was not recognised asks for one; it does not pretend to be the first kind in the list.
  const [kind, setKind] = useState(known ? evidence.kind : '');
  const correct = useCorrectEvidenceKind(incidentId, evidence.id);
  if (kinds.length === 0) return null;
  return (
    <form
      className="kind-correction"
      onSubmit={(event) => {
        event.preventDefault();
        correct.mutate(kind);
      }}
    >
      <label>
        <span className="small muted">Evidence kind</span>
        <select
          value={kind}
          onChange={(event) => {
            setKind(event.target.value);
          }}
        >
          {!known && (
            <option value="" disabled>
              Choose a kind…
            </option>
          )}
          {kinds.map((option) => (
            <option key={option.name} value={option.name}>
              {option.label}
            </option>
          ))}
        </select>
      </label>
      <button type="submit" className="button button--small" disabled={busy || correct.isPending || kind === ''}>
        {correct.isPending ? 'Sending…' : 'Analyse again'}
      </button>
      {correct.isError && <ErrorMessage>Could not analyse again: {correct.error.message}</ErrorMessage>}
    </form>
  );
}
