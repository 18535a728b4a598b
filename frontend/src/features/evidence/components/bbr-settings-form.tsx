import { useState } from 'react';

import { ApiError, fieldErrors } from '@/api/errors';
import type { BbrSettings, Evidence } from '@/api/types';
import { ErrorMessage } from '@/components/error-message';

import { useSetBbrSettings } from '../api/evidence-api';

interface Field {
  name: keyof BbrSettings;
  label: string;
  /** Shown as a percentage, sent as a share (0–1). */
  percent?: boolean;
  min: number;
  max: number;
}

const FIELDS: readonly Field[] = [
  { name: 'bottom_share', label: 'Bad group (% of prefixes)', percent: true, min: 1, max: 100 },
  { name: 'min_bytes', label: 'Ignore flows under (bytes)', min: 0, max: 1e12 },
  { name: 'min_duty', label: 'Duty cycle at least (%)', percent: true, min: 0, max: 100 },
  { name: 'max_flap', label: 'Flap rate at most (%)', percent: true, min: 0, max: 100 },
  { name: 'v4_prefix', label: 'IPv4 prefix (bits)', min: 8, max: 32 },
  { name: 'v6_prefix', label: 'IPv6 prefix (bits)', min: 16, max: 128 },
];

/** "Bad group (% of prefixes): Ensure this value is ..." for each setting the server refused. */
function refusals(error: Error): string {
  const body = error instanceof ApiError ? error.body : undefined;
  const nested = typeof body === 'object' && body !== null && 'bbr' in body ? body.bbr : undefined;
  const lines = FIELDS.flatMap((field) => fieldErrors(nested, field.name).map((m) => `${field.label}: ${m}`));
  return lines.length > 0 ? lines.join(' ') : error.message;
}

function shown(settings: BbrSettings, field: Field): string {
  const value = settings[field.name];
  return String(field.percent ? Math.round(value * 1000) / 10 : value);
}

/**
 * Seed 003's method, adjustable: which share of prefixes is "bad" in each snapshot, which flows
 * count, and how steady a prefix must be to be a BBR candidate. Saving analyses the file again.
 */
export function BbrSettingsForm({
  evidence,
  incidentId,
  busy,
}: {
  evidence: Evidence;
  incidentId: number;
  busy: boolean;
}) {
  const [values, setValues] = useState<Record<string, string>>(() =>
    Object.fromEntries(FIELDS.map((field) => [field.name, shown(evidence.bbr, field)])),
  );
  const save = useSetBbrSettings(incidentId, evidence.id);
  return (
    <details className="bbr-settings">
      <summary>BBR-candidate settings</summary>
      <form
        className="kind-correction"
        onSubmit={(event) => {
          event.preventDefault();
          const body = Object.fromEntries(
            FIELDS.map((field) => {
              const number = Number(values[field.name]);
              return [field.name, field.percent ? number / 100 : number];
            }),
          );
          save.mutate(body);
        }}
      >
        {FIELDS.map((field) => (
          <label key={field.name}>
            <span className="small muted">{field.label}</span>
            <input
              type="number"
              required
              inputMode="decimal"
              min={field.min}
              max={field.max}
              step="any"
              value={values[field.name]}
              onChange={(event) => {
                setValues({ ...values, [field.name]: event.target.value });
              }}
            />
          </label>
        ))}
        <button type="submit" className="button button--small" disabled={busy || save.isPending}>
          {save.isPending ? 'Sending…' : 'Analyse again'}
        </button>
        {save.isError && <ErrorMessage>Could not save the settings. {refusals(save.error)}</ErrorMessage>}
      </form>
    </details>
  );
}
