import { ApiError, fieldErrors } from '@/api/errors';
import type { Evidence } from '@/api/types';

import { useSetLinkLimits } from '../api/evidence-api';
import { interfacesOf } from '../summary';
import { NumberSettingsForm } from './number-settings-form';

const GBIT = 1e9;

function errorText(error: Error): string {
  const messages = error instanceof ApiError ? fieldErrors(error.body, 'link_limits_bps') : [];
  return messages.length > 0 ? messages.join(' ') : error.message;
}

/**
 * Each interface's limit in Gbit/s (empty: none), for neighbours.link_usage: with a limit per
 * interface and none near it, the neighbours step can be cleared. Saving analyses the file again.
 */
export function LinkLimitsForm({
  evidence,
  incidentId,
  busy,
}: {
  evidence: Evidence;
  incidentId: number;
  busy: boolean;
}) {
  const names = interfacesOf(evidence.summary);
  const save = useSetLinkLimits(incidentId, evidence.id);
  if (names.length === 0) return null;
  return (
    <NumberSettingsForm
      title="Interface limits"
      settings={names.map((name) => ({ key: name, label: `${name} (Gbit/s)`, min: 0.000001 }))}
      initial={Object.fromEntries(
        names.map((name) => {
          const bps = evidence.link_limits_bps[name];
          return [name, bps === undefined ? '' : String(bps / GBIT)];
        }),
      )}
      submitLabel="Save limits"
      busy={busy}
      pending={save.isPending}
      error={save.isError ? `Could not save the limits. ${errorText(save.error)}` : null}
      onSubmit={(values) => {
        save.mutate(
          Object.fromEntries(
            Object.entries(values)
              .filter(([, text]) => text.trim() !== '')
              .map(([name, text]) => [name, Number(text) * GBIT]),
          ),
        );
      }}
    />
  );
}
