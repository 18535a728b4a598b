/**
 * Names for the API's shapes, all taken from the generated schema (`schema.d.ts`), never written by
 * hand. They are looked up through the paths so that a renamed component does not break them.
 */
import type { paths } from './schema';

type JsonOf<R> = R extends { content: { 'application/json': infer B } } ? B : never;
type Ok<Op> = Op extends { responses: { 200: infer R } }
  ? JsonOf<R>
  : Op extends { responses: { 201: infer R } }
    ? JsonOf<R>
    : never;
type Body<Op> = Op extends { requestBody?: infer B } ? JsonOf<NonNullable<B>> : never;
type Query<Op> = Op extends { parameters: { query?: infer Q } } ? NonNullable<Q> : never;

export type Me = Ok<paths['/api/auth/me/']['get']>;
export type Team = Me['teams'][number];
export type LoginBody = Body<paths['/api/auth/login/']['post']>;
export type ApiToken = Ok<paths['/api/auth/token/']['post']>;

export type Incident = Ok<paths['/api/incidents/{incident_id}/']['get']>;
export type IncidentListQuery = Query<paths['/api/incidents/']['get']>;
export type IncidentCreate = Body<paths['/api/incidents/']['post']>;
export type IncidentUpdate = Body<paths['/api/incidents/{incident_id}/']['patch']>;
export type Severity = Incident['severity'];
export type IncidentStatus = Incident['status'];

export type Evidence = Ok<paths['/api/incidents/{incident_id}/evidence/{evidence_id}/']['get']>;
export type AnalysisRun = NonNullable<Evidence['analysis']>;
export type AnalysisStatus = AnalysisRun['status'];
export type EvidenceKindUpdate = Body<paths['/api/incidents/{incident_id}/evidence/{evidence_id}/']['patch']>;
export type EvidenceKind = NonNullable<EvidenceKindUpdate['kind']>;
export type Provenance = Evidence['provenance'];
export type HostRole = NonNullable<Provenance['role']['value']>;
export type ProvenanceSource = NonNullable<Provenance['host']['source']>;
export type ProvenanceUpdate = Pick<EvidenceKindUpdate, 'host' | 'role' | 'taken_at'>;
export type DeletedEvidence = Ok<paths['/api/incidents/{incident_id}/evidence/deleted/']['get']>[number];
/** A settings group's values, as the evidence carries them (numbers by setting, or rates by key). */
export type SettingsValues = Evidence['settings'][string];

/** The engine's registry as the API serves it: every evidence kind and how each finding is shown. */
export type EvidenceKindCatalogue = Ok<paths['/api/evidence-kinds/']['get']>;
export type EvidenceKindInfo = EvidenceKindCatalogue['kinds'][number];
export type SettingsGroup = EvidenceKindInfo['settings'][number];
export type NumberSetting = NonNullable<SettingsGroup['numbers']>[number];
export type SettingDisplay = NonNullable<NumberSetting['display']>;
export type FindingSpec = EvidenceKindCatalogue['findings'][number];
export type FindingField = EvidenceKindInfo['keys'][number];
export type FindingUnit = FindingField['unit'];
export type EvidenceLines = Ok<paths['/api/incidents/{incident_id}/evidence/{evidence_id}/lines/']['get']>;

export type ConnectionPage = Ok<paths['/api/incidents/{incident_id}/evidence/{evidence_id}/connections/']['get']>;
export type Connection = ConnectionPage['results'][number];
export type ConnectionListQuery = Query<
  paths['/api/incidents/{incident_id}/evidence/{evidence_id}/connections/']['get']
>;
export type ConnectionFlag = NonNullable<ConnectionListQuery['flag']>[number];
export type PacketPage = Ok<
  paths['/api/incidents/{incident_id}/evidence/{evidence_id}/connections/{conn_id}/packets/']['get']
>;
export type ConnectionDetail = Ok<
  paths['/api/incidents/{incident_id}/evidence/{evidence_id}/connections/{conn_id}/']['get']
>;
export type TimeSequence = Ok<
  paths['/api/incidents/{incident_id}/evidence/{evidence_id}/connections/{conn_id}/time-sequence/']['get']
>;
export type TimeSequenceSender = NonNullable<
  Query<
    paths['/api/incidents/{incident_id}/evidence/{evidence_id}/connections/{conn_id}/time-sequence/']['get']
  >['sender']
>;

export type Finding = Ok<paths['/api/incidents/{incident_id}/findings/']['get']>[number];
export type FindingSeverity = Finding['severity'];

export type ChecklistStep = Ok<paths['/api/incidents/{incident_id}/checklist/']['get']>[number];
export type Layer = ChecklistStep['layer'];
export type Verdict = ChecklistStep['verdict'];
export type VerdictUpdate = Body<paths['/api/incidents/{incident_id}/checklist/{layer}/']['patch']>;

export type TimelinePage = Ok<paths['/api/incidents/{incident_id}/timeline/']['get']>;
export type TimelineEvent = TimelinePage['events'][number];
export type EventKind = TimelineEvent['kind'];
export type NoteCreate = Body<paths['/api/incidents/{incident_id}/notes/']['post']>;

/** Paths used outside openapi-fetch (tus uploads, download links); `satisfies` keeps them in the schema. */
export const UPLOADS_PATH = '/api/incidents/{incident_id}/evidence/uploads/' satisfies keyof paths;
export const DOWNLOAD_PATH = '/api/incidents/{incident_id}/evidence/{evidence_id}/download/' satisfies keyof paths;

export type Bisect = Ok<paths['/api/incidents/{incident_id}/bisects/{bisect_id}/']['get']>;
export type BisectSummary = Ok<paths['/api/incidents/{incident_id}/bisects/']['get']>[number];
export type BisectCreate = Body<paths['/api/incidents/{incident_id}/bisects/']['post']>;
export type BisectStatus = BisectSummary['status'];
export type BisectStep = Bisect['steps'][number];
export type BisectRun = BisectStep['runs'][number];
export type StepVerdict = BisectStep['verdict'];
export type FirstBadCommit = NonNullable<BisectSummary['first_bad']>;
export type KnownChange = NonNullable<FirstBadCommit['known_change']>;
export type VerdictRule = NonNullable<BisectCreate['rule']>;
export type MetricDirection = NonNullable<BisectCreate['direction']>;
export type KernelTag = Ok<paths['/api/bisects/kernel-tags/']['get']>[number];

export type BisectSchedule = Ok<paths['/api/incidents/{incident_id}/bisect-schedules/{schedule_id}/']['get']>;
export type ScheduleCreate = Body<paths['/api/incidents/{incident_id}/bisect-schedules/']['post']>;
export type ScheduleUpdate = Body<paths['/api/incidents/{incident_id}/bisect-schedules/{schedule_id}/']['patch']>;
export type ScheduleKind = BisectSchedule['kind'];
