import { ApiError, fieldErrors } from '@/api/errors';
import type { Evidence, SettingDisplay, SettingsGroup } from '@/api/types';
import { isRecord } from '@/lib/narrow';

import { useChangeSettings } from '../api/evidence-api';
import { type NumberSetting, NumberSettingsForm } from './number-settings-form';

/** Values go to the API as they are and are shown as `value / factor` (0.2 → 20 with a 0.01 factor). */
function shown(value: number, display: SettingDisplay | null): number {
  return display ? Number((value / display.factor).toPrecision(12)) : value;
}

function sent(text: string, display: SettingDisplay | null): number {
  const number = Number(text);
  return display ? Number((number * display.factor).toPrecision(12)) : number;
}

interface Field extends NumberSetting {
  display: SettingDisplay | null;
}

/** The form's inputs: a group's numbers, or one rate per key the summary offers (a snapshot's interfaces). */
function fieldsOf(group: SettingsGroup, summary: unknown): Field[] {
  if (group.numbers) {
    return group.numbers.map((n) => ({
      key: n.name,
      label: n.label,
      min: shown(n.minimum, n.display),
      max: shown(n.maximum, n.display),
      required: true,
      display: n.display,
    }));
  }
  const rates = group.rates;
  if (!rates || !isRecord(summary)) return [];
  const offered = summary[rates.keys_from];
  if (!isRecord(offered)) return [];
  return Object.keys(offered)
    .sort()
    .map((key) => ({
      key,
      label: `${key} (${rates.display.unit})`,
      min: shown(rates.minimum, rates.display),
      max: shown(rates.maximum, rates.display),
      display: rates.display,
    }));
}

/** What the server refused, per input where it says which ("Ignore flows under (bytes): Ensure …"). */
function refusals(error: Error, group: SettingsGroup, fields: Field[]): string {
  const body = error instanceof ApiError ? error.body : undefined;
  const nested = isRecord(body) ? body[group.name] : undefined;
  const lines = fields.flatMap((field) => fieldErrors(nested, field.key).map((m) => `${field.label}: ${m}`));
  const whole = fieldErrors(body, group.name);
  return [...lines, ...whole].join(' ') || error.message;
}

/**
 * One group of an evidence kind's settings, as the engine's schema describes it (BBR-candidate
 * settings, interface limits). Saving analyses the file again.
 */
export function SettingsForm({
  group,
  evidence,
  incidentId,
  busy,
}: {
  group: SettingsGroup;
  evidence: Evidence;
  incidentId: number;
  busy: boolean;
}) {
  const save = useChangeSettings(incidentId, evidence.id, group.name);
  const fields = fieldsOf(group, evidence.summary);
  if (fields.length === 0) return null;
  const current = evidence.settings[group.name] ?? {};
  const defaults = Object.fromEntries(group.numbers?.map((n) => [n.name, n.default]) ?? []);
  return (
    <NumberSettingsForm
      title={group.title}
      settings={fields}
      initial={Object.fromEntries(
        fields.map((field) => {
          const value = current[field.key] ?? defaults[field.key];
          return [field.key, value === undefined ? '' : String(shown(value, field.display))];
        }),
      )}
      submitLabel={group.submit_label}
      busy={busy}
      pending={save.isPending}
      error={save.isError ? `Could not save these settings. ${refusals(save.error, group, fields)}` : null}
      onSubmit={(values) => {
        save.mutate(
          Object.fromEntries(
            fields
              .filter((field) => (values[field.key] ?? '').trim() !== '')
              .map((field) => [field.key, sent(values[field.key] ?? '', field.display)]),
          ),
        );
      }}
    />
  );
}
