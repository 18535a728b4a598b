import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useParams, useSearchParams } from 'react-router-dom';

import { NotFound } from '@/components/not-found';
import { oneOf } from '@/lib/narrow';
import { ConnectionDetailView } from '@/features/connections/components/connection-detail';
import { ConnectionsTable } from '@/features/connections/components/connections-table';
import { evidenceListQueryOptions } from '@/features/evidence/api/evidence-api';
import { incidentQueryOptions } from '@/features/incidents/api/incidents-api';
import { PacketList } from '@/features/packets/components/packet-list';
import { connectionPath } from '@/lib/anchors';

function positiveInt(value: string | undefined): number | undefined {
  const n = Number(value);
  return Number.isInteger(n) && n > 0 ? n : undefined;
}

/** Connection ids start at 0 (tshark's tcp.stream numbers). */
function naturalInt(value: string | undefined): number | undefined {
  const n = Number(value);
  return value !== undefined && value !== '' && Number.isInteger(n) && n >= 0 ? n : undefined;
}

function Breadcrumb({ incidentId, evidenceId, connId }: { incidentId: number; evidenceId: number; connId?: number }) {
  const incident = useQuery(incidentQueryOptions(incidentId));
  const evidence = useQuery(evidenceListQueryOptions(incidentId));
  const filename = evidence.data?.find((e) => e.id === evidenceId)?.filename ?? `evidence #${evidenceId}`;
  return (
    <nav aria-label="Breadcrumb" className="breadcrumb small">
      <Link to={`/incidents/${incidentId}`}>← {incident.data?.title ?? `Incident #${incidentId}`}</Link>
      {' / '}
      {connId === undefined ? (
        <span className="mono">{filename}</span>
      ) : (
        <Link to={`/incidents/${incidentId}/evidence/${evidenceId}/connections`} className="mono">
          {filename} connections
        </Link>
      )}
    </nav>
  );
}

/** `/incidents/:incidentId/evidence/:evidenceId/connections`: a capture's connection table. */
export function ConnectionsRoute() {
  const params = useParams();
  const incidentId = positiveInt(params.incidentId);
  const evidenceId = positiveInt(params.evidenceId);
  if (incidentId === undefined || evidenceId === undefined) return <NotFound what="Capture" />;
  return (
    <div className="connections-page">
      <Breadcrumb incidentId={incidentId} evidenceId={evidenceId} />
      <ConnectionsTable key={evidenceId} incidentId={incidentId} evidenceId={evidenceId} />
    </div>
  );
}

const SENDERS = ['auto', 'client', 'server'] as const;

/**
 * `/incidents/:incidentId/evidence/:evidenceId/connections/:connId?from=&to=&sender=`: one connection;
 * `from`/`to` (epoch seconds, from a finding's reference) shade that time range on the graph.
 */
export function ConnectionRoute() {
  const params = useParams();
  const [search, setSearch] = useSearchParams();
  // Local first (the radio answers at once), mirrored in the URL so a link keeps the choice.
  const [sender, setSender] = useState(() => oneOf(SENDERS, search.get('sender')) ?? 'auto');
  const incidentId = positiveInt(params.incidentId);
  const evidenceId = positiveInt(params.evidenceId);
  const connId = naturalInt(params.connId);
  if (incidentId === undefined || evidenceId === undefined || connId === undefined) {
    return <NotFound what="Connection" />;
  }
  const from = Number(search.get('from'));
  const to = Number(search.get('to'));
  const highlight =
    search.has('from') && search.has('to') && Number.isFinite(from) && Number.isFinite(to) && to >= from
      ? ([from, to] as const)
      : undefined;
  return (
    <div className="connection-page">
      <Breadcrumb incidentId={incidentId} evidenceId={evidenceId} connId={connId} />
      <ConnectionDetailView
        key={`${evidenceId}-${connId}`}
        incidentId={incidentId}
        evidenceId={evidenceId}
        connId={connId}
        sender={sender}
        highlight={highlight}
        onSenderChange={(value) => {
          setSender(value);
          const next = new URLSearchParams(search);
          if (value === 'auto') next.delete('sender');
          else next.set('sender', value);
          setSearch(next, { replace: true });
        }}
      />
    </div>
  );
}

/**
 * `/incidents/:incidentId/evidence/:evidenceId/connections/:connId/packets?start=&from=&to=`: the packet list of one
 * connection, from packet `start`, within `from`–`to` (epoch seconds) when a finding gives a time range.
 */
export function PacketsRoute() {
  const params = useParams();
  const [search] = useSearchParams();
  const incidentId = positiveInt(params.incidentId);
  const evidenceId = positiveInt(params.evidenceId);
  const connId = naturalInt(params.connId);
  if (incidentId === undefined || evidenceId === undefined || connId === undefined) {
    return <NotFound what="Connection" />;
  }
  const from = Number(search.get('from'));
  const to = Number(search.get('to'));
  const timeRange =
    search.has('from') && search.has('to') && Number.isFinite(from) && Number.isFinite(to) && to >= from
      ? ([from, to] as const)
      : undefined;
  const start = positiveInt(search.get('start') ?? undefined);
  return (
    <div className="packets-page">
      <Breadcrumb incidentId={incidentId} evidenceId={evidenceId} connId={connId} />
      <p className="small">
        <Link to={connectionPath(incidentId, evidenceId, connId, timeRange)}>← Connection {connId}</Link>
      </p>
      <PacketList
        key={`${evidenceId}-${connId}-${search.toString()}`}
        incidentId={incidentId}
        evidenceId={evidenceId}
        connId={connId}
        start={start}
        timeRange={timeRange}
      />
    </div>
  );
}
