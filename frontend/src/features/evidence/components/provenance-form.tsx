import { useId, useState } from 'react';

import type { Evidence, HostRole, ProvenanceSource } from '@/api/types';
import { ErrorMessage } from '@/components/error-message';
import { Fold } from '@/components/fold';
import { formatDateTime } from '@/lib/format';

import { useSetProvenance } from '../api/evidence-api';

const ROLE_LABEL: Record<HostRole, string> = {
  client: 'Client',
  server: 'Server',
  middlebox: 'Middlebox or router',
  hypervisor: 'Hypervisor',
  other: 'Other',
};
const ROLES = Object.keys(ROLE_LABEL) as HostRole[];

const SOURCE_LABEL: Record<ProvenanceSource, string> = {
  user: 'set by a person',
  content: "from the file's content",
  filename: 'from the file name',
  default: 'a guess',
};

/** datetime-local wants local "YYYY-MM-DDTHH:MM:SS"; the API speaks ISO with a zone. */
function toLocalInput(iso: string | null): string {
  if (!iso) return '';
  const date = new Date(iso);
  const local = new Date(date.getTime() - date.getTimezoneOffset() * 60_000);
  return local.toISOString().slice(0, 19);
}

function Known({ value, source }: { value: string | null; source: ProvenanceSource | null }) {
  if (value === null) return <span className="muted">not known</span>;
  return (
    <>
      {value} {source && <span className="muted small">({SOURCE_LABEL[source]})</span>}
    </>
  );
}

/**
 * Where a file comes from — its host, the host's role, when it was taken — each with where the value came
 * from, and a form to give a person's values, which win over what the file says. An empty field gives the
 * value back to the file. Snapshots pair per host in time order, so this decides which files are diffed.
 */
export function ProvenanceForm({ evidence, incidentId }: { evidence: Evidence; incidentId: number }) {
  const id = useId();
  const { host, role, taken_at: takenAt } = evidence.provenance;
  const [hostValue, setHostValue] = useState(host.source === 'user' ? (host.value ?? '') : '');
  const [roleValue, setRoleValue] = useState<HostRole | ''>(role.source === 'user' ? (role.value ?? '') : '');
  const [timeValue, setTimeValue] = useState(takenAt.source === 'user' ? toLocalInput(takenAt.value) : '');
  const save = useSetProvenance(incidentId, evidence.id);
  const fileHost = host.source !== 'user' ? host.value : null;
  const fileRole = role.source !== 'user' ? role.value : null;
  return (
    <section className="provenance" aria-labelledby={`${id}-title`}>
      {/* The card says it in one line (host, role, time); the heading names the region for screen readers. */}
      <h4 id={`${id}-title`} className="visually-hidden">
        Where it comes from
      </h4>
      <dl className="provenance__facts small">
        <div>
          <dt>Host</dt>
          <dd>
            <Known value={host.value} source={host.source} />
          </dd>
        </div>
        <div>
          <dt>Role</dt>
          <dd>
            <Known value={role.value ? ROLE_LABEL[role.value] : null} source={role.source} />
          </dd>
        </div>
        <div>
          <dt>Taken at</dt>
          <dd>
            <Known value={takenAt.value ? formatDateTime(takenAt.value) : null} source={takenAt.source} />
          </dd>
        </div>
      </dl>
      <Fold summary="Change host, role or time">
        <form
          className="provenance-form"
          onSubmit={(event) => {
            event.preventDefault();
            save.mutate({
              host: hostValue.trim() || null,
              role: roleValue || null,
              taken_at: timeValue ? new Date(timeValue).toISOString() : null,
            });
          }}
        >
          <label>
            <span className="small muted">Host</span>
            <input
              type="text"
              value={hostValue}
              maxLength={100}
              placeholder={fileHost ?? 'a name or an address'}
              aria-describedby={`${id}-empty`}
              onChange={(event) => {
                setHostValue(event.target.value);
              }}
            />
          </label>
          <label>
            <span className="small muted">Role</span>
            <select
              value={roleValue}
              onChange={(event) => {
                const chosen = ROLES.find((r) => r === event.target.value);
                setRoleValue(chosen ?? '');
              }}
            >
              <option value="">{fileRole ? `As the file says (${ROLE_LABEL[fileRole]})` : 'Not known'}</option>
              {ROLES.map((r) => (
                <option key={r} value={r}>
                  {ROLE_LABEL[r]}
                </option>
              ))}
            </select>
          </label>
          <label>
            <span className="small muted">Taken at</span>
            <input
              type="datetime-local"
              step={1}
              value={timeValue}
              onChange={(event) => {
                setTimeValue(event.target.value);
              }}
            />
          </label>
          <button type="submit" className="button button--small" disabled={save.isPending}>
            {save.isPending ? 'Saving…' : 'Save'}
          </button>
          <p id={`${id}-empty`} className="small muted">
            Leave a field empty to use what the file says.
          </p>
          {save.isError && <ErrorMessage>Could not save: {save.error.message}</ErrorMessage>}
        </form>
      </Fold>
    </section>
  );
}
