import { type SubmitEvent, useRef, useState } from 'react';

import { ErrorMessage } from '@/components/error-message';
import type { ScheduleCreate, ScheduleKind } from '@/api/types';
import { datetimeLocalToIso } from '@/lib/format';
import { oneOf } from '@/lib/narrow';

import { useCreateSchedule } from '../api/schedules-api';
import { SCHEDULE_KIND_LABEL, SCHEDULE_KINDS } from '../labels';
import { type FieldErrors, parseNumber, splitApiErrors, withoutField } from '../lib/form-errors';
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

const FOLLOWS = ['tag', 'branch'] as const;
type Follow = (typeof FOLLOWS)[number];

interface ScheduleValues {
  name: string;
  kind: ScheduleKind;
  good: string;
  bad: string;
  startAt: string;
  windowStart: string;
  windowEnd: string;
  follow: Follow;
  tagPattern: string;
  branch: string;
  interval: string;
}

const SHOWN_FIELDS = [
  'name',
  'kind',
  'good',
  'bad',
  'start_at',
  'window_start',
  'window_end',
  'tag_pattern',
  'branch',
  'interval_minutes',
  ...SPEC_API_FIELDS,
];

function validate(values: ScheduleValues, spec: SpecValues): FieldErrors {
  const errors = validateSpec(spec);
  if (!values.name.trim()) errors.name = ['Give the schedule a name.'];
  if (values.kind !== 'watch') {
    if (!values.good.trim()) errors.good = ['Required to start a bisect.'];
    if (!values.bad.trim()) errors.bad = ['Required to start a bisect.'];
  }
  if (values.kind === 'once' && datetimeLocalToIso(values.startAt) === undefined) errors.start_at = ['Pick a time.'];
  if (values.kind === 'nightly') {
    if (!values.windowStart) errors.window_start = ['Pick when the window opens.'];
    if (!values.windowEnd) errors.window_end = ['Pick when the window closes.'];
  }
  if (values.kind === 'watch') {
    if (values.follow === 'tag' && !values.tagPattern.trim()) errors.tag_pattern = ['A glob such as v6.*.'];
    if (values.follow === 'branch' && !values.branch.trim()) errors.branch = ['A branch name.'];
    const interval = parseNumber(values.interval);
    if (interval === undefined || !Number.isInteger(interval) || interval < 1)
      errors.interval_minutes = ['At least 1.'];
  }
  return errors;
}

function body(values: ScheduleValues, spec: SpecValues): ScheduleCreate {
  const watch = values.kind === 'watch';
  return {
    ...specBody(spec),
    name: values.name.trim(),
    kind: values.kind,
    enabled: true,
    good: watch ? '' : values.good.trim(),
    bad: watch ? '' : values.bad.trim(),
    start_at: values.kind === 'once' ? (datetimeLocalToIso(values.startAt) ?? null) : null,
    window_start: values.kind === 'nightly' ? values.windowStart : null,
    window_end: values.kind === 'nightly' ? values.windowEnd : null,
    tag_pattern: watch && values.follow === 'tag' ? values.tagPattern.trim() : '',
    branch: watch && values.follow === 'branch' ? values.branch.trim() : '',
    interval_minutes: watch ? (parseNumber(values.interval) ?? 60) : 60,
  };
}

/** Adds a schedule: a bisect at a time, in a nightly window, or a watch that bisects when a new tag regresses. */
export function ScheduleForm({ incidentId, onDone }: { incidentId: number; onDone: () => void }) {
  const create = useCreateSchedule(incidentId);
  const formRef = useRef<HTMLFormElement>(null);
  const [values, setValues] = useState<ScheduleValues>({
    name: '',
    kind: 'nightly',
    good: '',
    bad: '',
    startAt: '',
    windowStart: '01:00',
    windowEnd: '05:00',
    follow: 'tag',
    tagPattern: '',
    branch: '',
    interval: '60',
  });
  const [spec, setSpec] = useState<SpecValues>(DEFAULT_SPEC);
  const [clientErrors, setClientErrors] = useState<FieldErrors>({});
  const server = create.isError ? splitApiErrors(create.error, SHOWN_FIELDS) : { fields: {}, other: null };
  const errors: FieldErrors = { ...server.fields, ...clientErrors };

  const set = (changes: Partial<ScheduleValues>) => {
    setValues((previous) => ({ ...previous, ...changes }));
  };

  const submit = (event: SubmitEvent<HTMLFormElement>) => {
    event.preventDefault();
    const found = validate(values, spec);
    setClientErrors(found);
    if (Object.keys(found).length > 0) {
      window.setTimeout(() => formRef.current?.querySelector<HTMLElement>('[aria-invalid="true"]')?.focus(), 0);
      return;
    }
    create.reset();
    create.mutate(body(values, spec), { onSuccess: onDone });
  };

  const text = (
    label: string,
    name: keyof ScheduleValues,
    apiName: string,
    extra: { type?: string; hint?: string } = {},
  ) => (
    <Field label={label} errors={errors[apiName]} hint={extra.hint}>
      <input
        type={extra.type ?? 'text'}
        className={extra.type ? undefined : 'mono'}
        value={values[name]}
        autoComplete="off"
        spellCheck={false}
        onChange={(e) => {
          set({ [name]: e.target.value });
        }}
      />
    </Field>
  );

  return (
    <form className="form bisect-form" aria-label="Add a schedule" onSubmit={submit} noValidate ref={formRef}>
      <div className="form__row">
        {text('Name', 'name', 'name')}
        <Field label="Kind" errors={errors.kind}>
          <select
            value={values.kind}
            onChange={(e) => {
              set({ kind: oneOf(SCHEDULE_KINDS, e.target.value) ?? values.kind });
            }}
          >
            {SCHEDULE_KINDS.map((kind) => (
              <option key={kind} value={kind}>
                {SCHEDULE_KIND_LABEL[kind]}
              </option>
            ))}
          </select>
        </Field>
      </div>
      <SpecFields
        values={spec}
        errors={errors}
        onChange={(changes) => {
          setSpec((previous) => ({ ...previous, ...changes }));
          for (const key of Object.keys(changes)) {
            const name = oneOf(SPEC_KEYS, key);
            if (name) setClientErrors((previous) => withoutField(previous, SPEC_API_NAME[name]));
          }
        }}
        refs={
          <>
            {values.kind !== 'watch' && (
              <div className="form__row">
                {text('Good ref', 'good', 'good')}
                {text('Bad ref', 'bad', 'bad')}
              </div>
            )}
            {values.kind === 'once' && text('Start at', 'startAt', 'start_at', { type: 'datetime-local' })}
            {values.kind === 'nightly' && (
              <div className="form__row">
                {text('Window opens (UTC)', 'windowStart', 'window_start', { type: 'time' })}
                {text('Window closes (UTC)', 'windowEnd', 'window_end', {
                  type: 'time',
                  hint: 'Earlier than the opening: the next day.',
                })}
              </div>
            )}
            {values.kind === 'watch' && (
              <>
                <Field label="Follow">
                  <select
                    value={values.follow}
                    onChange={(e) => {
                      set({ follow: oneOf(FOLLOWS, e.target.value) ?? values.follow });
                    }}
                  >
                    <option value="tag">The newest tag matching a pattern</option>
                    <option value="branch">A branch head</option>
                  </select>
                </Field>
                <div className="form__row">
                  {values.follow === 'tag'
                    ? text('Tag pattern', 'tagPattern', 'tag_pattern', { hint: 'A glob, in version order, e.g. v6.*.' })
                    : text('Branch', 'branch', 'branch')}
                  {text('Check every (minutes)', 'interval', 'interval_minutes', { type: 'number' })}
                </div>
              </>
            )}
          </>
        }
      />
      {server.other && <ErrorMessage>Could not add the schedule: {server.other}</ErrorMessage>}
      <div className="form__actions">
        <button type="submit" className="button button--primary" disabled={create.isPending}>
          {create.isPending ? 'Adding…' : 'Add schedule'}
        </button>
        <button type="button" className="button" onClick={onDone}>
          Cancel
        </button>
      </div>
    </form>
  );
}
