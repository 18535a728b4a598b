/**
 * The postmortem in one click: Markdown to paste into a tracker, or a printable page (served by the API with a
 * strict Content-Security-Policy: no script runs in it). Plain links: the browser sends the session cookie.
 */
export function PostmortemLinks({ incidentId }: { incidentId: number }) {
  const base = `/api/incidents/${String(incidentId)}/postmortem`;
  return (
    <div className="postmortem-links" role="group" aria-label="Postmortem">
      <span className="postmortem-links__label">Postmortem</span>
      <a className="button button--small" href={`${base}.md`} download>
        Download Markdown
      </a>
      <a className="button button--small" href={`${base}.html`} target="_blank" rel="noopener noreferrer">
        Printable page
      </a>
    </div>
  );
}
