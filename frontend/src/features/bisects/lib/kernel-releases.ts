import type { Evidence } from '@/api/types';
import { isRecord } from '@/lib/narrow';

/** The evidence kind the kernel-versions analyzer gives `uname -r` / `uname -a` files. */
export const KERNEL_VERSIONS_KIND = 'kernel_versions';

interface SeenVersion {
  raw: string;
  upstream: number[];
  role: string | null;
}

export interface KernelRange {
  /** Release strings as the evidence gives them, e.g. `6.5.13-1-aws`. */
  good?: string;
  bad?: string;
}

function versionsOf(summary: unknown): SeenVersion[] {
  if (!isRecord(summary) || !Array.isArray(summary.versions)) return [];
  return summary.versions.flatMap((v: unknown): SeenVersion[] => {
    if (!isRecord(v) || typeof v.raw !== 'string' || !v.raw) return [];
    const upstream = typeof v.upstream === 'string' ? v.upstream.split('.').map(Number) : [];
    return [{ raw: v.raw, upstream, role: typeof v.role === 'string' ? v.role : null }];
  });
}

function compareVersions(a: number[], b: number[]): number {
  for (let i = 0; i < Math.max(a.length, b.length); i += 1) {
    const d = (a[i] ?? 0) - (b[i] ?? 0);
    if (d !== 0) return d;
  }
  return 0;
}

/**
 * The kernel releases to bisect between, from the incident's kernel-version evidence: the ones marked
 * "before" and "after" when the file says so, else the oldest and the newest distinct versions
 * (an upgrade is what usually brings the regression). Empty when there is nothing to go on.
 */
export function kernelRangeFromEvidence(evidence: readonly Evidence[]): KernelRange {
  const versions = evidence.filter((e) => e.kind === KERNEL_VERSIONS_KIND).flatMap((e) => versionsOf(e.summary));
  const before = versions.find((v) => v.role === 'before');
  const after = [...versions].reverse().find((v) => v.role === 'after');
  if (before && after && before.raw !== after.raw) return { good: before.raw, bad: after.raw };

  const sorted = [...versions].sort((a, b) => compareVersions(a.upstream, b.upstream));
  const oldest = sorted[0];
  const newest = sorted.at(-1);
  if (!oldest || !newest || compareVersions(oldest.upstream, newest.upstream) === 0) return {};
  return { good: oldest.raw, bad: newest.raw };
}
