import { ApiError, fieldErrors } from '@/api/errors';
import type { BbrSettings, Evidence } from '@/api/types';

import { useSetBbrSettings } from '../api/evidence-api';
import { type NumberSetting, NumberSettingsForm } from './number-settings-form';

interface Field extends NumberSetting {
  key: keyof BbrSettings;
  /** Shown as a percentage, sent as a share (0–1). */
  percent?: boolean;
}

const FIELDS: readonly Field[] = [
  { key: 'bottom_share', label: 'Bad group (% of prefixes)', percent: true, min: 1, max: 100, required: true },
  { key: 'min_bytes', label: 'Ignore flows under (bytes)', min: 0, max: 1e12, required: true },
  { key: 'min_duty', label: 'Duty cycle at least (%)', percent: true, min: 0, max: 100, required: true },
  { key: 'max_flap', label: 'Flap rate at most (%)', percent: true, min: 0, max: 100, required: true },
  { key: 'v4_prefix', label: 'IPv4 prefix (bits)', min: 8, max: 32, required: true },
  { key: 'v6_prefix', label: 'IPv6 prefix (bits)', min: 16, max: 128, required: true },
];

/** "Bad group (% of prefixes): Ensure this value is ..." for each setting the server refused. */
function refusals(error: Error): string {
  const body = error instanceof ApiError ? error.body : undefined;
  const nested = typeof body === 'object' && body !== null && 'bbr' in body ? body.bbr : undefined;
  const lines = FIELDS.flatMap((field) => fieldErrors(nested, field.key).map((m) => `${field.label}: ${m}`));
  return lines.length > 0 ? lines.join(' ') : error.message;
}

function shown(settings: BbrSettings, field: Field): string {
  const value = settings[field.key];
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
  const save = useSetBbrSettings(incidentId, evidence.id);
  return (
    <NumberSettingsForm
      title="BBR-candidate settings"
      settings={FIELDS}
      initial={Object.fromEntries(FIELDS.map((field) => [field.key, shown(evidence.bbr, field)]))}
      submitLabel="Analyse again"
      busy={busy}
      pending={save.isPending}
      error={save.isError ? `Could not save the settings. ${refusals(save.error)}` : null}
      onSubmit={(values) => {
        save.mutate(
          Object.fromEntries(
            FIELDS.map((field) => {
              const number = Number(values[field.key]);
              return [field.key, field.percent ? number / 100 : number];
            }),
          ),
        );
      }}
    />
  );
}
