import { queryOptions, useMutation, useQueryClient } from '@tanstack/react-query';

import { api } from '@/api/client';
import { expectOk, unwrap } from '@/api/errors';
import { incidentScopeKey } from '@/api/query-keys';
import {
  DOWNLOAD_PATH,
  type Evidence,
  type EvidenceKind,
  type EvidenceKindUpdate,
  type ProvenanceUpdate,
} from '@/api/types';

export const evidenceKeys = {
  list: (incidentId: number) => [...incidentScopeKey(incidentId), 'evidence'] as const,
  deleted: (incidentId: number) => [...incidentScopeKey(incidentId), 'evidence', 'deleted'] as const,
  detail: (incidentId: number, evidenceId: number) =>
    [...incidentScopeKey(incidentId), 'evidence', evidenceId] as const,
};

/** True while the worker still has to say something about this evidence. */
export function isAnalysisActive(evidence: Evidence): boolean {
  const status = evidence.analysis?.status;
  return status === 'queued' || status === 'running';
}

/** How often to poll the evidence list while any analysis is queued or running. */
export const EVIDENCE_POLL_MS = 1000;

export const evidenceListQueryOptions = (incidentId: number) =>
  queryOptions({
    queryKey: evidenceKeys.list(incidentId),
    queryFn: async ({ signal }) =>
      unwrap(
        await api.GET('/api/incidents/{incident_id}/evidence/', {
          params: { path: { incident_id: incidentId } },
          signal,
        }),
      ),
    // The analysis row is the truth about the background work; poll it only while it can change.
    refetchInterval: (query) => (query.state.data?.some(isAnalysisActive) ? EVIDENCE_POLL_MS : false),
  });

export function downloadUrl(incidentId: number, evidenceId: number): string {
  return DOWNLOAD_PATH.replace('{incident_id}', String(incidentId)).replace('{evidence_id}', String(evidenceId));
}

/** One PATCH of the evidence card; the answer (with its new run, if any) replaces the list entry at once. */
function usePatchEvidence<T>(incidentId: number, evidenceId: number, toBody: (value: T) => EvidenceKindUpdate) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (value: T) =>
      unwrap(
        await api.PATCH('/api/incidents/{incident_id}/evidence/{evidence_id}/', {
          params: { path: { incident_id: incidentId, evidence_id: evidenceId } },
          body: toBody(value),
        }),
      ),
    onSuccess: (updated) => {
      queryClient.setQueryData(evidenceKeys.list(incidentId), (list: Evidence[] | undefined) =>
        list?.map((item) => (item.id === updated.id ? updated : item)),
      );
      // Findings, the checklist and the timeline change with the new run or the new pairing.
      void queryClient.invalidateQueries({ queryKey: incidentScopeKey(incidentId) });
    },
  });
}

/** Reads the file again as another kind; the answer carries the new (queued) run, so polling starts at once. */
export function useCorrectEvidenceKind(incidentId: number, evidenceId: number) {
  return usePatchEvidence(incidentId, evidenceId, (kind: EvidenceKind) => ({ kind }));
}

/**
 * Say where the file comes from: its host, the host's role, when it was taken. A field sent as null goes
 * back to what the file says; fields left out stay as they are. The findings across evidence are recomputed.
 */
export function useSetProvenance(incidentId: number, evidenceId: number) {
  return usePatchEvidence(incidentId, evidenceId, (change: ProvenanceUpdate) => change);
}

/**
 * Change one group of the evidence kind's settings (the PATCH body names the group: `{"bbr": {...}}`);
 * the file is analysed again with them. Numbers are merged into the current ones; rates replace them.
 */
export function useChangeSettings(incidentId: number, evidenceId: number, group: string) {
  return usePatchEvidence(incidentId, evidenceId, (values: Record<string, number>) => ({ [group]: values }));
}

/**
 * Leave the file's findings out of the checklist, the findings across evidence and the postmortem (its card
 * stays), or use them again.
 */
export function useSetExcluded(incidentId: number, evidenceId: number) {
  return usePatchEvidence(incidentId, evidenceId, (excluded: boolean) => ({ excluded }));
}

/** The incident's deleted files that can still be restored, the latest deleted first. */
export const deletedEvidenceQueryOptions = (incidentId: number) =>
  queryOptions({
    queryKey: evidenceKeys.deleted(incidentId),
    queryFn: async ({ signal }) =>
      unwrap(
        await api.GET('/api/incidents/{incident_id}/evidence/deleted/', {
          params: { path: { incident_id: incidentId } },
          signal,
        }),
      ),
  });

/** Delete a file from the incident: it goes at once (restorable until its purge time); everything refreshes. */
export function useDeleteEvidence(incidentId: number, evidenceId: number) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async () => {
      expectOk(
        await api.DELETE('/api/incidents/{incident_id}/evidence/{evidence_id}/', {
          params: { path: { incident_id: incidentId, evidence_id: evidenceId } },
        }),
      );
    },
    onSuccess: () => {
      queryClient.setQueryData(evidenceKeys.list(incidentId), (list: Evidence[] | undefined) =>
        list?.filter((item) => item.id !== evidenceId),
      );
      void queryClient.invalidateQueries({ queryKey: incidentScopeKey(incidentId) });
    },
  });
}

/** Bring back a deleted file, as it was. */
export function useRestoreEvidence(incidentId: number) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (evidenceId: number) =>
      unwrap(
        await api.POST('/api/incidents/{incident_id}/evidence/{evidence_id}/restore/', {
          params: { path: { incident_id: incidentId, evidence_id: evidenceId } },
        }),
      ),
    onSuccess: () => {
      void queryClient.invalidateQueries({ queryKey: incidentScopeKey(incidentId) });
    },
  });
}
