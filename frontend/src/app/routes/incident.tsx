import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useCallback, useMemo, useState } from 'react';
import { useParams } from 'react-router-dom';

import { ErrorMessage } from '@/components/error-message';
import { Loading } from '@/components/loading';
import { NotFound } from '@/components/not-found';
import { isNotFound } from '@/api/errors';
import { evidenceKindsQueryOptions } from '@/api/evidence-kinds';
import { incidentScopeKey } from '@/api/query-keys';
import { BisectsSection } from '@/features/bisects/components/bisects-section';
import { FindingChart } from '@/features/charts/components/finding-chart';
import { checklistQueryOptions } from '@/features/checklist/api/checklist-api';
import { Checklist } from '@/features/checklist/components/checklist';
import { VerdictStrip } from '@/features/checklist/components/verdict-strip';
import { evidenceListQueryOptions } from '@/features/evidence/api/evidence-api';
import { EvidenceSection } from '@/features/evidence/components/evidence-section';
import { FindingList } from '@/features/findings/components/finding-list';
import type { FindingSource } from '@/features/findings/lib/group';
import { incidentKeys, incidentQueryOptions } from '@/features/incidents/api/incidents-api';
import { IncidentHeader } from '@/features/incidents/components/incident-header';
import { PostmortemLinks } from '@/features/postmortem/components/postmortem-links';
import { timelineKeys } from '@/features/timeline/api/timeline-api';
import { Timeline } from '@/features/timeline/components/timeline';

function IncidentPage({ incidentId }: { incidentId: number }) {
  const queryClient = useQueryClient();
  const incident = useQuery(incidentQueryOptions(incidentId));
  // The verdict strip's data, asked for with the incident rather than after it renders: the answer comes first.
  useQuery(checklistQueryOptions(incidentId));
  // What each evidence kind offers and how findings are shown: the cards below read it synchronously.
  const kinds = useQuery(evidenceKindsQueryOptions);
  // Shared with the evidence section (same query): the bisect form prefills from kernel versions in it.
  const evidence = useQuery(evidenceListQueryOptions(incidentId));
  const [bisectFormOpen, setBisectFormOpen] = useState(false);
  // Where each file was taken, for the "seen from" on every finding's line.
  const sources = useMemo(
    () =>
      new Map<number, FindingSource>(
        (evidence.data ?? []).map((e) => [
          e.id,
          { filename: e.filename, host: e.provenance.host.value, role: e.provenance.role.value },
        ]),
      ),
    [evidence.data],
  );

  // The timeline is the incident's event stream: when it brings anything new (a teammate's upload,
  // a finished analysis, a verdict), refresh everything else about the incident.
  const onNewEvents = useCallback(() => {
    const timelineKey = timelineKeys.list(incidentId);
    void queryClient.invalidateQueries({
      queryKey: incidentScopeKey(incidentId),
      predicate: (query) =>
        query.queryKey.length !== timelineKey.length || query.queryKey.at(-1) !== timelineKey.at(-1),
    });
    void queryClient.invalidateQueries({ queryKey: incidentKeys.lists() });
  }, [incidentId, queryClient]);

  if (incident.isPending || kinds.isPending) return <Loading label="Loading incident…" />;
  if (kinds.isError) return <ErrorMessage>Could not load the evidence kinds: {kinds.error.message}</ErrorMessage>;
  if (incident.isError) {
    if (isNotFound(incident.error)) return <NotFound what="Incident" />;
    return <ErrorMessage>Could not load the incident: {incident.error.message}</ErrorMessage>;
  }

  const canRunBisects = incident.data.viewer_role === 'owner';

  return (
    <div className="incident">
      <IncidentHeader incident={incident.data} />
      <VerdictStrip incidentId={incidentId} />
      <PostmortemLinks incidentId={incidentId} />
      <div className="incident__columns">
        <div className="incident__main">
          <Checklist
            incidentId={incidentId}
            renderFindings={(findings) => (
              <FindingList
                findings={findings}
                incidentId={incidentId}
                sources={sources}
                renderChart={(f) => <FindingChart finding={f} />}
              />
            )}
            renderStepActions={(layer) =>
              layer === 'kernel' &&
              canRunBisects && (
                <button
                  type="button"
                  className="button button--small"
                  onClick={() => {
                    setBisectFormOpen(true);
                  }}
                >
                  Start a bisect
                </button>
              )
            }
          />
          <EvidenceSection incidentId={incidentId} />
          <BisectsSection
            incidentId={incidentId}
            evidence={evidence.data}
            formOpen={bisectFormOpen && canRunBisects}
            onFormOpenChange={setBisectFormOpen}
            canRunBisects={canRunBisects}
          />
        </div>
        <aside className="incident__side" aria-label="Incident timeline">
          <Timeline incidentId={incidentId} onNewEvents={onNewEvents} />
        </aside>
      </div>
    </div>
  );
}

export function IncidentRoute() {
  const { incidentId } = useParams();
  const id = Number(incidentId);
  if (!Number.isInteger(id) || id <= 0) return <NotFound what="Incident" />;
  // Keyed so that moving between incidents starts each page fresh (uploads, open forms).
  return <IncidentPage key={id} incidentId={id} />;
}
