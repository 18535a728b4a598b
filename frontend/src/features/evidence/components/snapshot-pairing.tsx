import type { Evidence } from '@/api/types';
import { formatDuration } from '@/lib/format';

type Pairing = NonNullable<Evidence['pairing']>;

const ORDERED_BY: Record<Pairing['ordered_by'], string> = {
  time: 'Ordered by the time each was taken.',
  'file name': 'Ordered by "before" and "after" in the file names; say when each was taken to order them by time.',
  counters: 'Ordered by the counters themselves (they only grow); say when each was taken to order them by time.',
  'upload order': 'Ordered by upload; say when each was taken to pair them by time.',
};

function sentence(pairing: Pairing): string {
  const other = (pairing.other_filename ?? 'another snapshot') + (pairing.host ? ` from ${pairing.host}` : '');
  const over = pairing.interval_s === null ? 'interval unknown' : `over ${formatDuration(pairing.interval_s)}`;
  switch (pairing.role) {
    case 'before':
      return `Earlier snapshot, diffed with ${other} (${over}).`;
    case 'after':
      return `Later snapshot, diffed with ${other} (${over}).`;
    case 'between':
      return 'In the middle of three or more snapshots: only the first and the last are diffed.';
    case 'only':
      return 'The only snapshot of its kind: its counters are totals since boot. Upload a second one to get deltas.';
  }
}

/** Which snapshot this one is diffed with, over what interval, and what decided the order. */
export function SnapshotPairing({ pairing }: { pairing: Evidence['pairing'] }) {
  if (!pairing) return null;
  return (
    <p className="small">
      {sentence(pairing)} <span className="muted">{ORDERED_BY[pairing.ordered_by]}</span>
    </p>
  );
}
