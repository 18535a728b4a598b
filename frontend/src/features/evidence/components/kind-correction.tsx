import { useState } from 'react';

import { ErrorMessage } from '@/components/error-message';
import type { Evidence, EvidenceKind } from '@/api/types';
import { oneOf } from '@/lib/narrow';

import { useCorrectEvidenceKind } from '../api/evidence-api';
import { EVIDENCE_KIND_LABEL, EVIDENCE_KINDS } from '../labels';

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
  const current = oneOf(EVIDENCE_KINDS, evidence.kind);
  const [kind, setKind] = useState<EvidenceKind>(current ?? 'capture');
  const correct = useCorrectEvidenceKind(incidentId, evidence.id);
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
            setKind(oneOf(EVIDENCE_KINDS, event.target.value) ?? kind);
          }}
        >
          {EVIDENCE_KINDS.map((value) => (
            <option key={value} value={value}>
              {EVIDENCE_KIND_LABEL[value]}
            </option>
          ))}
        </select>
      </label>
      <button type="submit" className="button button--small" disabled={busy || correct.isPending}>
        {correct.isPending ? 'Sending…' : 'Analyse again'}
      </button>
      {correct.isError && <ErrorMessage>Could not analyse again: {correct.error.message}</ErrorMessage>}
    </form>
  );
}
