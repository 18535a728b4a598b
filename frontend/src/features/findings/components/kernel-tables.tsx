import { formatBitRate, formatDuration, formatExactBytes, formatMs } from '@/lib/format';
import { isRecord } from '@/lib/narrow';

type Row = Record<string, unknown>;

function str(row: Row, key: string): string {
  const value = row[key];
  return typeof value === 'string' ? value : typeof value === 'number' ? String(value) : '';
}

function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}

function num(row: Row, key: string): number | undefined {
  const value = row[key];
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

function versionText(value: unknown): string {
  if (!isRecord(value)) return '?';
  const raw = str(value, 'raw');
  const upstream = str(value, 'upstream');
  return raw && upstream && raw !== upstream ? `${raw} (upstream ${upstream})` : raw || upstream || '?';
}

/** A source as its host and path, so a reader sees where it leads. */
function sourceLabel(url: string): string {
  try {
    const parsed = new URL(url);
    return parsed.host + (parsed.pathname.length > 1 ? parsed.pathname.replace(/\/$/, '').slice(0, 48) : '');
  } catch {
    return url;
  }
}

export function SourceLinks({ sources }: { sources: readonly string[] }) {
  const safe = sources.filter((s) => /^https?:\/\//i.test(s));
  if (safe.length === 0) return <span className="muted">none</span>;
  return (
    <ul className="source-links">
      {safe.map((url) => (
        <li key={url}>
          <a href={url} target="_blank" rel="noopener noreferrer">
            {sourceLabel(url)}
          </a>
        </li>
      ))}
    </ul>
  );
}

/** `kernel.known_change_in_range`: the version range, then the knowledge base's changes in it. */
export function KnownChangesTable({ data }: { data: Row }) {
  const changes = Array.isArray(data.changes) ? data.changes.filter(isRecord) : [];
  return (
    <div className="kernel-card">
      <p className="kernel-card__range">
        <span className="muted small">Version range </span>
        <strong className="mono">{versionText(data.before)}</strong> →{' '}
        <strong className="mono">{versionText(data.after)}</strong>
      </p>
      {changes.length === 0 ? (
        <p className="muted small">No known change in this range.</p>
      ) : (
        <div className="table-scroll">
          <table className="table table--compact" aria-label="Known changes">
            <thead>
              <tr>
                <th scope="col">Commit</th>
                <th scope="col">Title</th>
                <th scope="col">First release</th>
                <th scope="col">Stable backports</th>
                <th scope="col">Fix</th>
                <th scope="col">Sources</th>
              </tr>
            </thead>
            <tbody>
              {changes.map((change) => {
                const backports = strings(change.stable_backports);
                const fixedBy = Array.isArray(change.fixed_by) ? change.fixed_by.filter(isRecord) : [];
                return (
                  <tr key={str(change, 'id')}>
                    <td className="mono" title={str(change, 'commit')}>
                      {str(change, 'id')}
                    </td>
                    <td>
                      <strong>{str(change, 'title')}</strong>
                      <div className="small muted">
                        {change.direction === 'lost' ? 'not in the after kernel' : 'new in the after kernel'}
                        {change.regression === true && ', a regression'}
                        {change.unfixed_in_after === true && ', not fixed in the after kernel'}
                      </div>
                      {str(change, 'change') && (
                        <details className="small">
                          <summary>What it changes</summary>
                          <p>{str(change, 'change')}</p>
                          {strings(change.symptoms).length > 0 && (
                            <ul>
                              {strings(change.symptoms).map((s) => (
                                <li key={s}>{s}</li>
                              ))}
                            </ul>
                          )}
                        </details>
                      )}
                    </td>
                    <td>{str(change, 'first_release') || '—'}</td>
                    <td>{backports.length > 0 ? backports.join(', ') : 'none'}</td>
                    <td className="small">
                      {str(change, 'fix') || '—'}
                      {fixedBy.length > 0 && (
                        <div className="muted">
                          {fixedBy
                            .map((f) => `${str(f, 'id')} ${f.after_has === true ? 'in' : 'not in'} the after kernel`)
                            .join('; ')}
                        </div>
                      )}
                    </td>
                    <td>
                      <SourceLinks sources={strings(change.sources)} />
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
    </div>
  );
}

/** `kernel.receive_window_model`: the inputs, then one row per kernel. */
export function WindowModelTable({ data }: { data: Row }) {
  const kernels = Array.isArray(data.kernels) ? data.kernels.filter(isRecord) : [];
  const rcvbuf = num(data, 'so_rcvbuf');
  const rtt = num(data, 'rtt_ms');
  const size = num(data, 'transfer_bytes');
  const timeout = num(data, 'timeout_ms');
  const sourced = (value: string, source: string) => (
    <>
      {value}
      {source && <span className="muted small"> — {source}</span>}
    </>
  );
  return (
    <div className="kernel-card">
      <dl className="facts facts--wide" aria-label="Model inputs">
        <div>
          <dt>SO_RCVBUF</dt>
          <dd>{sourced(rcvbuf === undefined ? '—' : formatExactBytes(rcvbuf), str(data, 'so_rcvbuf_source'))}</dd>
        </div>
        <div>
          <dt>RTT</dt>
          <dd>{sourced(formatMs(rtt), str(data, 'rtt_source'))}</dd>
        </div>
        <div>
          <dt>Transfer size</dt>
          <dd>{sourced(size === undefined ? '—' : formatExactBytes(size), str(data, 'transfer_source'))}</dd>
        </div>
        <div>
          <dt>Timeout</dt>
          <dd>{sourced(timeout === undefined ? '—' : formatDuration(timeout / 1000), str(data, 'timeout_source'))}</dd>
        </div>
        <div>
          <dt>tcp_adv_win_scale</dt>
          <dd>{sourced(str(data, 'tcp_adv_win_scale') || '—', str(data, 'tcp_adv_win_scale_source'))}</dd>
        </div>
        {str(data, 'tcp_rmem') && (
          <div>
            <dt>tcp_rmem</dt>
            <dd className="mono">{str(data, 'tcp_rmem')}</dd>
          </div>
        )}
      </dl>
      <div className="table-scroll">
        <table className="table table--compact" aria-label="Receive window per kernel">
          <thead>
            <tr>
              <th scope="col">Kernel</th>
              <th scope="col" className="num">
                Window
              </th>
              <th scope="col" className="num">
                Throughput
              </th>
              <th scope="col" className="num">
                Transfer time
              </th>
              <th scope="col">Fits the timeout</th>
            </tr>
          </thead>
          <tbody>
            {kernels.map((k, i) => {
              const window = num(k, 'window');
              const throughput = num(k, 'throughput_bps');
              const transfer = num(k, 'transfer_s');
              return (
                <tr key={i}>
                  <td>
                    <span className="mono">{str(k, 'kernel') || str(k, 'version')}</span>
                    {str(k, 'role') && <span className="muted small"> ({str(k, 'role')})</span>}
                    {str(k, 'formula') && <div className="small muted mono">{str(k, 'formula')}</div>}
                  </td>
                  <td className="num">{window === undefined ? '—' : formatExactBytes(window)}</td>
                  <td className="num">{throughput === undefined ? '—' : formatBitRate(throughput)}</td>
                  <td className="num">{transfer === undefined ? '—' : formatDuration(transfer)}</td>
                  <td>{k.fits_timeout === true ? 'yes' : k.fits_timeout === false ? <strong>no</strong> : '—'}</td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
    </div>
  );
}
