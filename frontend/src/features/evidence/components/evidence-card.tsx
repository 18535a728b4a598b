import { useId } from 'react';
import { Link } from 'react-router-dom';

import { kindInfo, useEvidenceKinds } from '@/api/evidence-kinds';
import { Badge, type BadgeTone } from '@/components/badge';
import { ErrorMessage } from '@/components/error-message';
import { Fold } from '@/components/fold';
import { ProgressBar } from '@/components/progress-bar';
import type { AnalysisRun, Evidence } from '@/api/types';
import { formatBytes, formatCount, formatDateTime } from '@/lib/format';
import { evidenceAnchorId } from '@/lib/anchors';
import { isRecord, oneOf } from '@/lib/narrow';

import { downloadUrl } from '../api/evidence-api';
import { EvidenceActions } from './evidence-actions';
import { EvidenceSummary } from './evidence-summary';
import { KindCorrection } from './kind-correction';
import { ProvenanceForm } from './provenance-form';
import { SettingsForm } from './settings-form';
import { SnapshotPairing } from './snapshot-pairing';

/**
 * The run states the UI knows. The schema types `analysis.status` as a plain string for now, so it is
 * narrowed here; an unknown value is shown as it comes.
 */
const RUN_STATUSES = ['queued', 'running', 'done', 'failed'] as const;
type RunStatus = (typeof RUN_STATUSES)[number];

const STATUS_LABEL: Record<RunStatus, string> = {
  queued: 'Queued',
  running: 'Running',
  done: 'Done',
  failed: 'Failed',
};

const STATUS_TONE: Record<RunStatus, BadgeTone> = {
  queued: 'neutral',
  running: 'info',
  done: 'good',
  failed: 'bad',
};

function AnalysisState({ run, filename }: { run: AnalysisRun | null; filename: string }) {
  if (!run) return <p className="muted">No analyzer for this kind of evidence yet.</p>;
  const status = oneOf(RUN_STATUSES, run.status);
  switch (status) {
    case 'queued':
      return <p className="muted">Waiting for a worker…</p>;
    case 'running': {
      const percent = run.progress * 100;
      return (
        <div className="analysis-running">
          <ProgressBar percent={percent} label={`Analysing ${filename}`} />
          <p className="muted small">
            {Math.round(percent)}%{run.progress_message ? ` · ${run.progress_message}` : ''}
          </p>
        </div>
      );
    }
    case 'failed':
      return (
        <ErrorMessage>
          Analysis failed: {run.error || 'no reason given'}
          {run.error_offset !== null && ` (at byte ${formatCount(run.error_offset)})`}
        </ErrorMessage>
      );
    case 'done':
      // Read in part: the findings cover what was read before the error, which the card must say.
      return run.error ? (
        <p className="evidence-card__partial" role="status">
          Read in part: reading stopped
          {run.error_offset !== null ? ` at byte ${formatCount(run.error_offset)}` : ''}
          {run.error_line !== null ? ` at line ${formatCount(run.error_line)}` : ''} ({run.error}). The findings cover
          what was read before it.
        </p>
      ) : null;
    case undefined:
      return <p className="muted">Analysis {run.status}.</p>;
  }
}

/**
 * One uploaded file, read at a glance: its name and state, one line saying what it shows, where it comes
 * from (editable in place), what it is diffed with; the hash, the parser's numbers, the kind correction and
 * the settings are folded under "Details". What its kind offers (a connection table, snapshot pairing,
 * settings) comes from the kind's entry in the catalogue.
 */
export function EvidenceCard({ evidence, incidentId }: { evidence: Evidence; incidentId: number }) {
  const id = useId();
  const kind = kindInfo(useEvidenceKinds(), evidence.kind);
  const run = evidence.analysis;
  const status = run ? oneOf(RUN_STATUSES, run.status) : undefined;
  const busy = status === 'queued' || status === 'running';
  const summary = isRecord(evidence.summary) ? evidence.summary : null;
  const connections =
    kind?.connections && status === 'done' && typeof summary?.tcp_connections === 'number'
      ? summary.tcp_connections
      : undefined;
  // A file that could not be read, or whose kind was not recognised, needs its kind corrected first.
  const needsKind = status === 'failed' || !kind;
  const kindForm = <KindCorrection key={evidence.kind} evidence={evidence} incidentId={incidentId} busy={busy} />;
  return (
    // The id is what a finding's evidence reference scrolls to.
    <article
      className={`card evidence-card${evidence.excluded ? ' evidence-card--excluded' : ''}`}
      id={evidenceAnchorId(evidence.id)}
      tabIndex={-1}
      aria-labelledby={`${id}-name`}
    >
      <header className="card__head">
        <h3 id={`${id}-name`} className="mono evidence-card__name">
          {evidence.filename}
        </h3>
        <span className="evidence-card__badges">
          {evidence.excluded && (
            <Badge tone="neutral" title="Its findings are left out of the checklist and the postmortem">
              Left out
            </Badge>
          )}
          {run &&
            (status === 'done' && run.error ? (
              <Badge tone="warn" title="The analysis read only part of the file">
                Read in part
              </Badge>
            ) : (
              <Badge tone={status ? STATUS_TONE[status] : 'neutral'} title={`Analysis ${run.status}`}>
                {status ? STATUS_LABEL[status] : run.status}
              </Badge>
            ))}
          <EvidenceActions evidence={evidence} incidentId={incidentId} />
        </span>
      </header>
      {evidence.meaning && <p className="evidence-card__meaning">{evidence.meaning}</p>}
      <p className="evidence-card__kind small muted">
        {kind?.label ?? evidence.kind} · {formatBytes(evidence.size)}
        {evidence.excluded && ' · left out of the analysis'}
      </p>
      <AnalysisState run={run} filename={evidence.filename} />
      <ProvenanceForm key={JSON.stringify(evidence.provenance)} evidence={evidence} incidentId={incidentId} />
      {kind?.snapshot && <SnapshotPairing pairing={evidence.pairing} />}
      {needsKind && kindForm}
      <p className="evidence-card__links">
        {connections !== undefined && (
          <Link to={`/incidents/${incidentId}/evidence/${evidence.id}/connections`}>
            Connections ({formatCount(connections)})
          </Link>
        )}
        <a href={downloadUrl(incidentId, evidence.id)} download>
          Download
        </a>
      </p>
      <Fold className="evidence-card__details" summary="Details">
        <dl className="facts">
          <div>
            <dt>Kind</dt>
            <dd>{kind?.label ?? evidence.kind}</dd>
          </div>
          <div>
            <dt>Size</dt>
            <dd>{formatBytes(evidence.size)}</dd>
          </div>
          <div>
            <dt>SHA-256</dt>
            <dd className="mono" title={evidence.sha256}>
              {evidence.sha256.slice(0, 12)}
            </dd>
          </div>
          <div>
            <dt>Uploaded</dt>
            <dd>
              {evidence.uploaded_by},{' '}
              <time dateTime={evidence.uploaded_at}>{formatDateTime(evidence.uploaded_at)}</time>
            </dd>
          </div>
          {run?.engine_version && (
            <div>
              <dt>Read by</dt>
              <dd>engine {run.engine_version}</dd>
            </div>
          )}
        </dl>
        {/* A failed analysis may still have read part of the file: show what it got. */}
        {summary && (status === 'done' || status === 'failed') && <EvidenceSummary summary={summary} />}
        {!needsKind && kindForm}
        {kind?.settings.map((group) => (
          // Keyed by what the form starts from, so it starts again when the saved values or the summary change.
          <SettingsForm
            key={JSON.stringify([group.name, evidence.settings[group.name], evidence.summary])}
            group={group}
            evidence={evidence}
            incidentId={incidentId}
            busy={busy}
          />
        ))}
      </Fold>
    </article>
  );
}
