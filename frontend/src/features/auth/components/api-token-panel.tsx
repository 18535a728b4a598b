import { useId } from 'react';

import { ErrorMessage } from '@/components/error-message';
import { CopyButton } from '@/components/copy-button';
import { curlUploadCommand } from '@/lib/curl';

import { useCreateToken } from '../api/auth-api';

/**
 * Creates (or rotates) the user's API token and shows the exact curl command that uploads a capture
 * from a server. The token is shown once: the API does not return it again.
 */
export function ApiTokenPanel({ origin = window.location.origin }: { origin?: string }) {
  const createToken = useCreateToken();
  const id = useId();
  const token = createToken.data?.token;
  const command = curlUploadCommand({ origin, token: token ?? '<token>', incidentId: '<id>' });

  return (
    <section className="panel" aria-labelledby={`${id}-title`}>
      <h1 id={`${id}-title`}>API token</h1>
      <p>
        Scripts and <code>curl</code> authenticate with a token instead of a session. Creating a token replaces any
        token you had before.
      </p>
      <button
        type="button"
        className="button button--primary"
        disabled={createToken.isPending}
        onClick={() => {
          createToken.mutate();
        }}
      >
        {token ? 'Rotate token' : 'Create token'}
      </button>
      {createToken.isError && <ErrorMessage>Could not create a token: {createToken.error.message}</ErrorMessage>}
      {token && (
        <div className="field">
          <label htmlFor={`${id}-token`}>Your token</label>
          <div className="inline">
            <input
              id={`${id}-token`}
              className="mono"
              readOnly
              value={token}
              onFocus={(e) => {
                e.target.select();
              }}
            />
            <CopyButton text={token} label="Copy token" />
          </div>
          <p className="muted">Copy it now; it is not shown again.</p>
        </div>
      )}
      <h2>Upload evidence from a shell</h2>
      <p>
        Replace <code>&lt;id&gt;</code> with the incident number (it is in the incident page&apos;s URL).
      </p>
      <div className="inline inline--top">
        <pre className="command" aria-label="curl upload command">
          <code>{command}</code>
        </pre>
        <CopyButton text={command} label="Copy curl command" />
      </div>
    </section>
  );
}
