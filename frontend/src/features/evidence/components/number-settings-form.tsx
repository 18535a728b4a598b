import { useState } from 'react';

import { ErrorMessage } from '@/components/error-message';

export interface NumberSetting {
  key: string;
  label: string;
  min?: number;
  max?: number;
  /** Empty means "none" when not required. */
  required?: boolean;
}

/**
 * A folded form of number inputs (the evidence card's analysis settings): edits stay local
 * until "submit", which hands the texts over; the caller converts and sends them.
 */
export function NumberSettingsForm({
  title,
  settings,
  initial,
  submitLabel,
  busy,
  pending,
  error,
  onSubmit,
}: {
  title: string;
  settings: readonly NumberSetting[];
  initial: Record<string, string>;
  submitLabel: string;
  busy: boolean;
  pending: boolean;
  error: string | null;
  onSubmit: (values: Record<string, string>) => void;
}) {
  const [values, setValues] = useState(initial);
  return (
    <details className="settings-form">
      <summary>{title}</summary>
      <form
        className="kind-correction"
        onSubmit={(event) => {
          event.preventDefault();
          onSubmit(values);
        }}
      >
        {settings.map((setting) => (
          <label key={setting.key}>
            <span className="small muted">{setting.label}</span>
            <input
              type="number"
              inputMode="decimal"
              required={setting.required}
              min={setting.min}
              max={setting.max}
              step="any"
              placeholder={setting.required ? undefined : 'none'}
              value={values[setting.key] ?? ''}
              onChange={(event) => {
                setValues({ ...values, [setting.key]: event.target.value });
              }}
            />
          </label>
        ))}
        <button type="submit" className="button button--small" disabled={busy || pending}>
          {pending ? 'Sending…' : submitLabel}
        </button>
        {error !== null && <ErrorMessage>{error}</ErrorMessage>}
      </form>
    </details>
  );
}
