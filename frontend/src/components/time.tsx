import { formatDateTime, formatUtc } from '@/lib/format';

/** A moment in the reader's time zone, with the same moment in UTC on hover. */
export function Time({ iso, className }: { iso: string; className?: string }) {
  return (
    <time dateTime={iso} title={formatUtc(iso)} className={className}>
      {formatDateTime(iso)}
    </time>
  );
}
