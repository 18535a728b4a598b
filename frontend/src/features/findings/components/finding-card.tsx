import * as Collapsible from '@radix-ui/react-collapsible';
import * as Tooltip from '@radix-ui/react-tooltip';
import { type ReactNode, useId, useState } from 'react';

import { Badge } from '@/components/badge';
import type { Finding } from '@/api/types';
import { findingAnchorId } from '@/lib/anchors';

import { FINDING_SEVERITY_TONE, severityOf } from '../labels';
import { describeFinding, describeGroup, type FindingGroup, type FindingSource } from '../lib/group';
import { FindingData } from './finding-data';
import { FindingRefs } from './finding-refs';

/** The analyzer's stable name for what was found, for people who script against the API: out of the way. */
function KindDetails({ kind }: { kind: string }) {
  return (
    <Tooltip.Provider delayDuration={300}>
      <Tooltip.Root>
        <Tooltip.Trigger asChild>
          <button type="button" className="finding__details link-button small">
            Details
          </button>
        </Tooltip.Trigger>
        <Tooltip.Portal>
          <Tooltip.Content className="tooltip" sideOffset={4}>
            Finding type in the API: <span className="mono">{kind}</span>
            <Tooltip.Arrow className="tooltip__arrow" />
          </Tooltip.Content>
        </Tooltip.Portal>
      </Tooltip.Root>
    </Tooltip.Provider>
  );
}

/** What a finding says beyond its title: the explanation, the numbers (a table per known kind), the links. */
export function FindingBody({
  finding,
  incidentId,
  chart,
}: {
  finding: Finding;
  incidentId: number;
  /** A chart composed by the app (charts are another feature). */
  chart?: ReactNode;
}) {
  return (
    <>
      <p className="finding__explanation">{finding.explanation}</p>
      {chart}
      <FindingData kind={finding.kind} data={finding.data} target={{ incidentId, evidenceId: finding.evidence }} />
      <FindingRefs incidentId={incidentId} refs={finding.refs} />
      <KindDetails kind={finding.kind} />
    </>
  );
}

/** One finding in full: severity, title and everything behind it (used where findings are not folded). */
export function FindingCard({
  finding,
  incidentId,
  chart,
}: {
  finding: Finding;
  incidentId: number;
  chart?: ReactNode;
}) {
  const id = useId();
  const severity = severityOf(finding.severity);
  return (
    <article
      className={`finding finding--${severity}`}
      id={findingAnchorId(finding.id)}
      tabIndex={-1}
      aria-labelledby={`${id}-title`}
    >
      <header className="finding__head">
        <Badge tone={FINDING_SEVERITY_TONE[severity]}>{finding.severity}</Badge>
        <h4 id={`${id}-title`}>{finding.title}</h4>
      </header>
      <FindingBody finding={finding} incidentId={incidentId} chart={chart} />
    </article>
  );
}

/**
 * One line per finding (severity, title with its numbers, the file and host it comes from) that opens to the
 * explanation, the table, the chart and the links. Findings of one group (the same traffic seen from several
 * files) share the line and show each vantage point when open.
 */
export function FindingRow({
  group,
  incidentId,
  sources,
  chart,
}: {
  group: FindingGroup;
  incidentId: number;
  sources?: ReadonlyMap<number, FindingSource>;
  chart?: ReactNode;
}) {
  const [open, setOpen] = useState(false);
  const { lead, findings } = group;
  const severity = severityOf(lead.severity);
  const sourceOf = (f: Finding) => describeFinding(f, sources);
  return (
    <li className={`finding finding--${severity}`}>
      <Collapsible.Root open={open} onOpenChange={setOpen}>
        {/* Every finding of the group answers to its own anchor ("show finding" links land on the line). */}
        {findings.slice(1).map((f) => (
          <span key={f.id} id={findingAnchorId(f.id)} tabIndex={-1} />
        ))}
        <Collapsible.Trigger className="finding__line" id={findingAnchorId(lead.id)}>
          <span className="finding__chevron" aria-hidden="true">
            {open ? '▾' : '▸'}
          </span>
          <Badge tone={FINDING_SEVERITY_TONE[severity]}>{lead.severity}</Badge>
          <span className="finding__title">{lead.title}</span>
          <span className="finding__source muted small">{describeGroup(group, sources)}</span>
        </Collapsible.Trigger>
        <Collapsible.Content className="finding__content">
          {findings.length === 1 ? (
            <FindingBody finding={lead} incidentId={incidentId} chart={chart} />
          ) : (
            findings.map((f) => (
              <section key={f.id} className="finding__vantage" aria-label={`Seen from ${sourceOf(f)}`}>
                <h5>
                  Seen from {sourceOf(f)}: {f.title}
                </h5>
                <FindingBody finding={f} incidentId={incidentId} />
              </section>
            ))
          )}
        </Collapsible.Content>
      </Collapsible.Root>
    </li>
  );
}
