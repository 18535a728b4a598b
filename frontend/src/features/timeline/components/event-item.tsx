import { useState } from 'react';

import type { TimelineEvent } from '@/api/types';
import { ErrorMessage } from '@/components/error-message';
import { InlineCode } from '@/components/inline-code';
import { Time } from '@/components/time';

import { usePinEvent } from '../api/timeline-api';
import { EVENT_KIND_LABEL, LAYER_LABEL } from '../labels';
import { actorOf, eventAnchor, eventUrl, layerOf, summaryText } from '../lib/group';
import { renderMarkdown } from '../lib/markdown';

function NoteBody({ text }: { text: string }) {
  // Sanitised by DOMPurify in renderMarkdown: no script, handler, style, image or form survives.
  return <div className="event__summary event__note" dangerouslySetInnerHTML={{ __html: renderMarkdown(text) }} />;
}

interface EventItemProps {
  incidentId: number;
  event: TimelineEvent;
  highlighted?: boolean;
  /** Inside a list that is not the log (key evidence, the linked event): no anchor id, to keep ids unique. */
  copy?: boolean;
}

/** One event: when (reader's zone, UTC on hover), who, what, and the actions on it (pin, link). */
export function EventItem({ incidentId, event, highlighted = false, copy = false }: EventItemProps) {
  const pin = usePinEvent(incidentId);
  const [linked, setLinked] = useState(false);
  const layer = layerOf(event);
  const copyLink = async () => {
    const url = eventUrl(incidentId, event.id);
    try {
      await navigator.clipboard.writeText(url);
    } catch {
      // Clipboard refused (insecure origin): the address bar gets the link instead.
    }
    window.history.replaceState(null, '', `#${eventAnchor(event.id)}`);
    setLinked(true);
    window.setTimeout(() => {
      setLinked(false);
    }, 1500);
  };
  return (
    <li
      id={copy ? undefined : eventAnchor(event.id)}
      className={`event event--${event.kind}${event.pinned ? ' event--pinned' : ''}${highlighted ? ' event--linked' : ''}`}
    >
      <div className="event__meta">
        <Time iso={event.created_at} />
        <span className="event__actor">{actorOf(event)}</span>
        <span className="event__kind">{EVENT_KIND_LABEL[event.kind]}</span>
        {layer && <span className="event__layer">{LAYER_LABEL[layer]}</span>}
        <span className="event__actions">
          <button
            type="button"
            className="link-button"
            aria-pressed={event.pinned}
            disabled={pin.isPending}
            title={event.pinned ? 'Unpin: no longer key evidence' : 'Pin as key evidence (listed in the postmortem)'}
            onClick={() => {
              pin.mutate({ eventId: event.id, pinned: !event.pinned });
            }}
          >
            {event.pinned ? 'Unpin' : 'Pin'}
          </button>
          <button
            type="button"
            className="link-button"
            title="Copy a link to this event"
            onClick={() => void copyLink()}
          >
            {linked ? 'Link copied' : 'Link'}
          </button>
        </span>
      </div>
      {event.kind === 'note' ? (
        <NoteBody text={event.summary} />
      ) : (
        <p className="event__summary">
          <InlineCode text={summaryText(event)} />
        </p>
      )}
      {pin.isError && <ErrorMessage>Could not change the pin: {pin.error.message}</ErrorMessage>}
    </li>
  );
}
