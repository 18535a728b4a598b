import { useState } from 'react';
import { Link } from 'react-router-dom';

import { connectionPath, evidenceAnchorId, packetsPath } from '@/lib/anchors';
import { formatDuration } from '@/lib/format';
import { isRecord } from '@/lib/narrow';

import { LinesViewer } from './lines-viewer';

/** A reference as the engine writes it (`Ref`), read defensively: the schema types refs as unknown. */
interface Ref {
  evidence: number | null;
  label: string;
  connection: string | null;
  packets: readonly [number, number] | null;
  time: readonly [number, number] | null;
  lines: readonly [number, number] | null;
  /** Keys of older or unknown refs, shown as text. */
  rest: string;
}

function pair(value: unknown): readonly [number, number] | null {
  if (!Array.isArray(value) || value.length !== 2) return null;
  const [a, b] = value as unknown[];
  return typeof a === 'number' && typeof b === 'number' ? [a, b] : null;
}

const KNOWN = new Set(['evidence', 'label', 'connection', 'packets', 'time', 'lines']);

function readRef(raw: unknown): Ref | null {
  if (typeof raw === 'string')
    return { evidence: null, label: raw, connection: null, packets: null, time: null, lines: null, rest: '' };
  if (!isRecord(raw)) return null;
  const connection = raw.connection;
  return {
    evidence: typeof raw.evidence === 'number' ? raw.evidence : null,
    label: typeof raw.label === 'string' ? raw.label : '',
    connection: typeof connection === 'string' || typeof connection === 'number' ? String(connection) : null,
    packets: pair(raw.packets),
    time: pair(raw.time),
    lines: pair(raw.lines),
    rest: Object.entries(raw)
      .filter(([k, v]) => !KNOWN.has(k) && (typeof v === 'string' || typeof v === 'number'))
      .map(([k, v]) => `${k} ${String(v)}`)
      .join(', '),
  };
}

/** Scrolls the evidence card into view and flashes it, so the reader sees which file it is. */
function showEvidence(evidenceId: number) {
  const card = document.getElementById(evidenceAnchorId(evidenceId));
  if (!card) return;
  card.scrollIntoView({ behavior: 'smooth', block: 'center' });
  card.focus({ preventScroll: true });
  card.classList.add('is-highlighted');
  window.setTimeout(() => {
    card.classList.remove('is-highlighted');
  }, 2000);
}

function lineRange([a, b]: readonly [number, number]): string {
  return a === b ? `line ${a}` : `lines ${a}–${b}`;
}

function RefItem({ incidentId, reference }: { incidentId: number; reference: Ref }) {
  const [open, setOpen] = useState(false);
  const { evidence, connection, packets, time, lines } = reference;
  const details = [
    packets && `packets ${packets[0]}–${packets[1]}`,
    time && time[1] > time[0] && `${formatDuration(time[1] - time[0])} span`,
    reference.rest,
  ].filter(Boolean);
  return (
    <li className="finding__ref small">
      {reference.label && <span>{reference.label}</span>}
      {details.length > 0 && <span className="muted"> ({details.join(', ')})</span>}
      {evidence !== null && connection !== null && (
        <>
          {' '}
          <Link to={connectionPath(incidentId, evidence, connection, time ?? undefined)}>
            Open connection {connection}
          </Link>{' '}
          <Link to={packetsPath(incidentId, evidence, connection, { start: packets?.[0], time: time ?? undefined })}>
            Show packets
          </Link>
        </>
      )}
      {evidence !== null && lines !== null && (
        <>
          {' '}
          <button
            type="button"
            className="link-button"
            aria-expanded={open}
            onClick={() => {
              setOpen((o) => !o);
            }}
          >
            {open ? 'Hide' : 'Show'} {lineRange(lines)}
          </button>
        </>
      )}
      {evidence !== null && (
        <>
          {' '}
          <a
            href={`#${evidenceAnchorId(evidence)}`}
            onClick={(event) => {
              event.preventDefault();
              showEvidence(evidence);
            }}
          >
            Show evidence
          </a>
        </>
      )}
      {open && evidence !== null && lines !== null && (
        <LinesViewer incidentId={incidentId} evidenceId={evidence} lines={lines} />
      )}
    </li>
  );
}

/** Where a finding points: connections open their detail, line ranges open in place, evidence scrolls into view. */
export function FindingRefs({ incidentId, refs }: { incidentId: number; refs: unknown }) {
  const list = Array.isArray(refs) ? refs.map(readRef).filter((r): r is Ref => r !== null) : [];
  if (list.length === 0) return null;
  return (
    <ul className="finding__refs" aria-label="References">
      {list.map((reference, i) => (
        <RefItem key={i} incidentId={incidentId} reference={reference} />
      ))}
    </ul>
  );
}
