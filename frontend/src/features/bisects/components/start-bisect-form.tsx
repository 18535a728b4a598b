import { type ReactNode, type SubmitEvent, useRef, useState } from 'react';

import { ErrorMessage } from '@/components/error-message';
import type { Bisect } from '@/api/types';
import { oneOf } from '@/lib/narrow';

import { useStartBisect } from '../api/bisects-api';
import { type FieldErrors, splitApiErrors, withoutField } from '../lib/form-errors';
import {
  DEFAULT_SPEC,
  SPEC_API_FIELDS,
  SPEC_API_NAME,
  SPEC_KEYS,
  type SpecValues,
  specBody,
  validateSpec,
} from '../lib/spec-form';
import { Field } from './field';
import { SpecFields } from './spec-fields';

export interface StartBisectInitial {
  good?: string;
  bad?: string;
  repo?: string;
}

interface StartBisectFormProps {
  incidentId: number;
  initial?: StartBisectInitial;
  /** Said under the refs: where the prefilled values came from, or how to get them. */
  refsHint?: ReactNode;
  onStarted: (job: Bisect) => void;
  onCancel?: () => void;
}

const SHOWN_FIELDS = ['good', 'bad', ...SPEC_API_FIELDS];

/** Starts a bisect of good..bad now. Enter submits from any field; errors sit under their field. */
export function StartBisectForm({ incidentId, initial, refsHint, onStarted, onCancel }: StartBisectFormProps) {
  const start = useStartBisect(incidentId);
  const formRef = useRef<HTMLFormElement>(null);
  const [good, setGood] = useState(initial?.good ?? '');
  const [bad, setBad] = useState(initial?.bad ?? '');
  const [spec, setSpec] = useState<SpecValues>({ ...DEFAULT_SPEC, repo: initial?.repo ?? '' });
  const [clientErrors, setClientErrors] = useState<FieldErrors>({});

  const server = start.isError ? splitApiErrors(start.error, SHOWN_FIELDS) : { fields: {}, other: null };
  const errors: FieldErrors = { ...server.fields, ...clientErrors };

  const submit = (event: SubmitEvent<HTMLFormElement>) => {
    event.preventDefault();
    const found = validateSpec(spec);
    if (!good.trim()) found.good = ['Give a ref or commit where the reproducer passes.'];
    if (!bad.trim()) found.bad = ['Give a ref or commit where it fails.'];
    setClientErrors(found);
    if (Object.keys(found).length > 0) {
      // Take the reader to the first field that needs fixing.
      window.setTimeout(() => formRef.current?.querySelector<HTMLElement>('[aria-invalid="true"]')?.focus(), 0);
      return;
    }
    start.reset();
    start.mutate({ ...specBody(spec), good: good.trim(), bad: bad.trim() }, { onSuccess: onStarted });
  };

  const clear = (name: string) => {
    setClientErrors((previous) => withoutField(previous, name));
  };

  return (
    <form className="form bisect-form" aria-label="Start a bisect" onSubmit={submit} noValidate ref={formRef}>
      <SpecFields
        values={spec}
        errors={errors}
        onChange={(changes) => {
          setSpec((previous) => ({ ...previous, ...changes }));
          for (const key of Object.keys(changes)) {
            const name = oneOf(SPEC_KEYS, key);
            if (name) clear(SPEC_API_NAME[name]);
          }
        }}
        refs={
          <>
            <div className="form__row">
              <Field label="Good ref" errors={errors.good}>
                <input
                  className="mono"
                  value={good}
                  autoComplete="off"
                  spellCheck={false}
                  placeholder="v6.5.13"
                  onChange={(e) => {
                    setGood(e.target.value);
                    clear('good');
                  }}
                />
              </Field>
              <Field label="Bad ref" errors={errors.bad}>
                <input
                  className="mono"
                  value={bad}
                  autoComplete="off"
                  spellCheck={false}
                  placeholder="v6.6.10"
                  onChange={(e) => {
                    setBad(e.target.value);
                    clear('bad');
                  }}
                />
              </Field>
            </div>
            {refsHint && <div className="muted small bisect-form__refs-hint">{refsHint}</div>}
          </>
        }
      />
      {server.other && <ErrorMessage>Could not start the bisect: {server.other}</ErrorMessage>}
      <div className="form__actions">
        <button type="submit" className="button button--primary" disabled={start.isPending}>
          {start.isPending ? 'Starting…' : 'Start bisect'}
        </button>
        {onCancel && (
          <button type="button" className="button" onClick={onCancel}>
            Cancel
          </button>
        )}
      </div>
    </form>
  );
}
