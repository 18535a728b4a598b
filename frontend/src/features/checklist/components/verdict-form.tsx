import { type SubmitEvent, useEffect, useId, useRef, useState } from 'react';

import { ErrorMessage } from '@/components/error-message';
import { ApiError, fieldErrors } from '@/api/errors';
import type { ChecklistStep, Verdict } from '@/api/types';

import { useUpdateVerdict } from '../api/checklist-api';
import { VERDICT_LABEL, VERDICTS } from '../labels';

interface VerdictFormProps {
  incidentId: number;
  step: ChecklistStep;
  initialVerdict?: Verdict;
  initialRationale?: string;
  onDone: () => void;
}

const BLANK_RATIONALE = 'A verdict needs a rationale: say why, and point at the evidence.';

function serverErrors(error: unknown): { rationale: string[]; other: string | null } {
  if (!(error instanceof ApiError)) return { rationale: [], other: error instanceof Error ? error.message : null };
  const rationale = fieldErrors(error.body, 'rationale');
  const verdict = fieldErrors(error.body, 'verdict');
  const other = verdict.length > 0 ? verdict.join(' ') : rationale.length > 0 ? null : error.message;
  return { rationale, other };
}

/** Sets a step's verdict. A rationale is required: the timeline records who decided what, and why. */
export function VerdictForm({ incidentId, step, initialVerdict, initialRationale, onDone }: VerdictFormProps) {
  const update = useUpdateVerdict(incidentId);
  const id = useId();
  const [verdict, setVerdict] = useState<Verdict>(initialVerdict ?? step.verdict);
  const [rationale, setRationale] = useState(initialRationale ?? step.rationale);
  const [blank, setBlank] = useState(false);
  const rationaleRef = useRef<HTMLTextAreaElement>(null);
  const verdictRef = useRef<HTMLSelectElement>(null);
  // The form opens where the keyboard can use it at once.
  useEffect(() => {
    verdictRef.current?.focus();
  }, []);

  const server = update.isError ? serverErrors(update.error) : { rationale: [], other: null };
  const rationaleError = blank ? BLANK_RATIONALE : server.rationale.join(' ') || null;

  const submit = (event: SubmitEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (!rationale.trim()) {
      setBlank(true);
      rationaleRef.current?.focus();
      return;
    }
    setBlank(false);
    update.mutate({ layer: step.layer, verdict, rationale: rationale.trim() }, { onSuccess: onDone });
  };

  return (
    <form
      className="verdict-form"
      onSubmit={submit}
      noValidate
      onKeyDown={(e) => {
        // Escape leaves the form as Cancel does, from any of its fields.
        if (e.key === 'Escape') {
          e.preventDefault();
          onDone();
        }
      }}
    >
      <div className="field">
        <label htmlFor={`${id}-verdict`}>Verdict</label>
        <select
          id={`${id}-verdict`}
          ref={verdictRef}
          value={verdict}
          onChange={(e) => {
            setVerdict(VERDICTS.find((v) => v === e.target.value) ?? verdict);
          }}
        >
          {VERDICTS.map((v) => (
            <option key={v} value={v}>
              {VERDICT_LABEL[v]}
            </option>
          ))}
        </select>
      </div>
      <div className="field">
        <label htmlFor={`${id}-rationale`}>Rationale</label>
        <textarea
          id={`${id}-rationale`}
          ref={rationaleRef}
          rows={3}
          required
          aria-invalid={rationaleError ? true : undefined}
          aria-describedby={rationaleError ? `${id}-rationale-error` : undefined}
          placeholder="Every packet sent by the client arrived at the server (two captures, matched by sequence number)."
          value={rationale}
          onChange={(e) => {
            setRationale(e.target.value);
            if (e.target.value.trim()) setBlank(false);
          }}
          onKeyDown={(e) => {
            // Ctrl/Cmd+Enter saves from the textarea (plain Enter makes a new line).
            if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) e.currentTarget.form?.requestSubmit();
          }}
        />
        {rationaleError && <ErrorMessage id={`${id}-rationale-error`}>{rationaleError}</ErrorMessage>}
      </div>
      {server.other && <ErrorMessage>Could not save the verdict: {server.other}</ErrorMessage>}
      <div className="form__actions">
        <button type="submit" className="button button--primary" disabled={update.isPending}>
          {update.isPending ? 'Saving…' : 'Save verdict'}
        </button>
        <button type="button" className="button" onClick={onDone}>
          Cancel
        </button>
      </div>
    </form>
  );
}
