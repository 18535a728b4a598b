import { useQuery } from '@tanstack/react-query';
import type { ReactNode } from 'react';

import { Loading } from '@/components/loading';
import type { Bisect, Evidence, KernelTag } from '@/api/types';

import { kernelTagsQueryOptions } from '../api/kernel-tags-api';
import { kernelRangeFromEvidence } from '../lib/kernel-releases';
import { StartBisectForm } from './start-bisect-form';

interface StartBisectPanelProps {
  incidentId: number;
  /** The incident's evidence: kernel versions in it prefill the good and bad refs (undefined: still loading). */
  evidence: readonly Evidence[] | undefined;
  /** Repository to offer (the one the last bisect used). */
  repo?: string;
  onStarted: (job: Bisect) => void;
  onCancel: () => void;
}

function describe(release: string, tag: KernelTag | undefined, role: string): ReactNode {
  if (!tag) return null;
  return (
    <li>
      <span className="mono">{release}</span> → <span className="mono">{tag.tag}</span> ({role}
      {tag.exact ? '' : `; only the upstream base: ${tag.note}`})
    </li>
  );
}

/** The start form, prefilled with the upstream tags of the kernel versions the incident's evidence shows. */
export function StartBisectPanel({ incidentId, evidence, repo, onStarted, onCancel }: StartBisectPanelProps) {
  const range = kernelRangeFromEvidence(evidence ?? []);
  const releases = [range.good, range.bad].filter((r): r is string => r !== undefined);
  const tags = useQuery(kernelTagsQueryOptions(releases));

  // Not the form before the evidence is known: its prefill would start the form again, wiping what was typed.
  if (evidence === undefined) return <Loading label="Reading the incident’s evidence…" />;
  if (releases.length > 0 && tags.isPending) return <Loading label="Looking up the kernel tags…" />;

  const tagOf = (release: string | undefined) => tags.data?.find((t) => t.input === release);
  const good = tagOf(range.good);
  const bad = tagOf(range.bad);
  const hint =
    good || bad ? (
      <>
        Prefilled from the kernel versions in the evidence:
        <ul className="bisect-form__tags">
          {range.good && describe(range.good, good, 'good')}
          {range.bad && describe(range.bad, bad, 'bad')}
        </ul>
      </>
    ) : (
      <>
        No kernel versions found in the evidence. Upload <code>uname -r</code> from before and after the upgrade to fill
        these in, or give any two refs of the repository.
      </>
    );

  return (
    <StartBisectForm
      // A new prefill (evidence arrived) starts the form again.
      key={`${good?.tag ?? ''}..${bad?.tag ?? ''}`}
      incidentId={incidentId}
      initial={{ good: good?.tag, bad: bad?.tag, repo }}
      refsHint={hint}
      onStarted={onStarted}
      onCancel={onCancel}
    />
  );
}
