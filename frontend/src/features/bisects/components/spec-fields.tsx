import type { KeyboardEvent, ReactNode } from 'react';

import { oneOf } from '@/lib/narrow';

import { DIRECTION_LABEL, DIRECTIONS, RULE_LABEL, RULES } from '../labels';
import type { FieldErrors } from '../lib/form-errors';
import { MAX_REPEATS, type SpecValues } from '../lib/spec-form';
import { Field } from './field';

interface SpecFieldsProps {
  values: SpecValues;
  errors: FieldErrors;
  onChange: (changes: Partial<SpecValues>) => void;
  /** Rendered right after the repository (the good and bad refs of the start form). */
  refs?: ReactNode;
}

/** Enter adds a line in a script; Ctrl+Enter (⌘+Enter) sends the form, as Enter does in a one-line field. */
function submitOnCtrlEnter(event: KeyboardEvent<HTMLTextAreaElement>) {
  if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) {
    event.preventDefault();
    event.currentTarget.form?.requestSubmit();
  }
}

/** Repository, path filter, reproducer and the verdict rule: the fields every bisect needs. */
export function SpecFields({ values, errors, onChange, refs }: SpecFieldsProps) {
  const repeats = Number(values.repeats);
  return (
    <>
      <Field
        label="Repository"
        errors={errors.repo}
        hint="A git URL, or a path to a repository on the workers (a kernel mirror)."
      >
        <input
          className="mono"
          value={values.repo}
          autoComplete="off"
          spellCheck={false}
          onChange={(e) => {
            onChange({ repo: e.target.value });
          }}
        />
      </Field>
      {refs}
      <Field
        label="Path filter"
        errors={errors.path}
        hint="Optional: only test commits touching this path, e.g. net/ipv4."
      >
        <input
          className="mono"
          value={values.path}
          autoComplete="off"
          spellCheck={false}
          onChange={(e) => {
            onChange({ path: e.target.value });
          }}
        />
      </Field>
      <Field
        label="Reproducer command"
        errors={errors.command}
        hint={
          <>
            A command or a short script, run by /bin/sh in a worktree at the candidate commit, inside the workers'
            sandbox: as an unprivileged user, with only the worktree and <code>$WHODUNNET_SCRATCH</code> writable and
            nothing of the workers' files or environment. <code>$WHODUNNET_COMMIT</code> names the commit. Ctrl+Enter
            sends the form.
          </>
        }
      >
        <textarea
          className="mono"
          rows={Math.min(12, Math.max(2, values.command.split('\n').length))}
          value={values.command}
          autoComplete="off"
          spellCheck={false}
          placeholder="make -j8 && ./measure-transfer"
          onKeyDown={submitOnCtrlEnter}
          onChange={(e) => {
            onChange({ command: e.target.value });
          }}
        />
      </Field>
      <Field
        label="Variables"
        errors={errors.env}
        hint="Optional: NAME=value, one per line. The reproducer gets these and nothing else of the workers' environment."
      >
        <textarea
          className="mono"
          rows={Math.min(8, Math.max(2, values.env.split('\n').length))}
          value={values.env}
          autoComplete="off"
          spellCheck={false}
          placeholder="XFER_BYTES=10485760"
          onKeyDown={submitOnCtrlEnter}
          onChange={(e) => {
            onChange({ env: e.target.value });
          }}
        />
      </Field>
      <Field
        label="Give the reproducer the workers' network"
        className="field--checkbox"
        errors={errors.network}
        hint="Off: it has a loopback of its own, enough for a client and a server it starts itself. On: it can download or reach a lab host, and the workers' own services."
      >
        <input
          type="checkbox"
          checked={values.network}
          onChange={(e) => {
            onChange({ network: e.target.checked });
          }}
        />
      </Field>
      <div className="form__row">
        <Field
          label="Repeats per step"
          errors={errors.repeats}
          hint="Runs per commit; more runs tame a flaky reproducer."
        >
          <input
            type="number"
            inputMode="numeric"
            min={1}
            max={MAX_REPEATS}
            step={1}
            value={values.repeats}
            onChange={(e) => {
              onChange({ repeats: e.target.value });
            }}
          />
        </Field>
        <Field
          label="Step timeout"
          errors={errors.step_timeout}
          hint="Seconds per run; a run that takes longer is an error, not bad."
        >
          <input
            type="number"
            inputMode="decimal"
            min={1}
            step="any"
            value={values.stepTimeout}
            onChange={(e) => {
              onChange({ stepTimeout: e.target.value });
            }}
          />
        </Field>
      </div>
      {repeats > 1 && (
        <Field
          label="Minimum agreement"
          errors={errors.min_agreement}
          hint="Share of the runs that must agree for good or bad (0.8 = 4 of 5); otherwise the step is inconclusive."
        >
          <input
            type="number"
            inputMode="decimal"
            min={0.5}
            max={1}
            step={0.05}
            value={values.minAgreement}
            onChange={(e) => {
              onChange({ minAgreement: e.target.value });
            }}
          />
        </Field>
      )}
      <Field label="Verdict rule" errors={errors.rule}>
        <select
          value={values.rule}
          onChange={(e) => {
            onChange({ rule: oneOf(RULES, e.target.value) ?? values.rule });
          }}
        >
          {RULES.map((rule) => (
            <option key={rule} value={rule}>
              {RULE_LABEL[rule]}
            </option>
          ))}
        </select>
      </Field>
      {values.rule === 'metric' && (
        <div className="form__row form__row--3">
          <Field
            label="Metric"
            errors={errors.metric}
            hint="The reproducer prints name=value, e.g. transfer_seconds=39.2."
          >
            <input
              className="mono"
              value={values.metric}
              autoComplete="off"
              spellCheck={false}
              onChange={(e) => {
                onChange({ metric: e.target.value });
              }}
            />
          </Field>
          <Field label="Threshold" errors={errors.threshold}>
            <input
              type="number"
              inputMode="decimal"
              step="any"
              value={values.threshold}
              onChange={(e) => {
                onChange({ threshold: e.target.value });
              }}
            />
          </Field>
          <Field label="Direction" errors={errors.direction}>
            <select
              value={values.direction}
              onChange={(e) => {
                onChange({ direction: oneOf(DIRECTIONS, e.target.value) ?? values.direction });
              }}
            >
              {DIRECTIONS.map((d) => (
                <option key={d} value={d}>
                  {DIRECTION_LABEL[d]}
                </option>
              ))}
            </select>
          </Field>
        </div>
      )}
      <Field label="When a step errors" errors={errors.on_error}>
        <select
          value={values.onError}
          onChange={(e) => {
            onChange({ onError: oneOf(['stop', 'skip'] as const, e.target.value) ?? values.onError });
          }}
        >
          <option value="stop">Stop the bisect (you can retry the step)</option>
          <option value="skip">Skip the commit</option>
        </select>
      </Field>
    </>
  );
}
