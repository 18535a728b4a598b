import { type SubmitEvent, useId, useState } from 'react';

import { ErrorMessage } from '@/components/error-message';

import { useAddNote } from '../api/timeline-api';

/** Adds a note to the timeline. Enter adds it; Shift+Enter makes a new line. */
export function NoteForm({ incidentId }: { incidentId: number }) {
  const addNote = useAddNote(incidentId);
  const [text, setText] = useState('');
  const [blank, setBlank] = useState(false);
  const id = useId();

  const submit = (event?: SubmitEvent<HTMLFormElement>) => {
    event?.preventDefault();
    if (!text.trim()) {
      setBlank(true);
      return;
    }
    setBlank(false);
    addNote.mutate(
      { text: text.trim() },
      {
        onSuccess: () => {
          setText('');
        },
      },
    );
  };

  return (
    <form className="note-form" onSubmit={submit} noValidate>
      <label htmlFor={`${id}-note`}>Add note</label>
      <textarea
        id={`${id}-note`}
        rows={2}
        value={text}
        placeholder="What you tried, what you saw…"
        aria-invalid={blank ? true : undefined}
        onChange={(e) => {
          setText(e.target.value);
        }}
        onKeyDown={(e) => {
          if (e.key === 'Enter' && !e.shiftKey && !e.nativeEvent.isComposing) {
            e.preventDefault();
            submit();
          }
        }}
      />
      {blank && <ErrorMessage>Write something first.</ErrorMessage>}
      {addNote.isError && <ErrorMessage>Could not add the note: {addNote.error.message}</ErrorMessage>}
      <button type="submit" className="button button--primary" disabled={addNote.isPending}>
        {addNote.isPending ? 'Adding…' : 'Add note'}
      </button>
    </form>
  );
}
