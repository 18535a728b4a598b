import * as Dialog from '@radix-ui/react-dialog';
import * as Menu from '@radix-ui/react-dropdown-menu';
import { useState } from 'react';

import type { Evidence } from '@/api/types';
import { ErrorMessage } from '@/components/error-message';

import { useDeleteEvidence, useSetExcluded } from '../api/evidence-api';

/**
 * What the team can do with a file as a whole: leave it out of the analysis (or put it back) and delete it,
 * behind one menu button so the card stays one glance. Deleting asks first, in a dialog (Enter deletes,
 * Escape keeps the file); the file can be restored from "Deleted files" until it is purged.
 */
export function EvidenceActions({ evidence, incidentId }: { evidence: Evidence; incidentId: number }) {
  const [confirming, setConfirming] = useState(false);
  const exclude = useSetExcluded(incidentId, evidence.id);
  const remove = useDeleteEvidence(incidentId, evidence.id);
  return (
    <>
      <Menu.Root>
        <Menu.Trigger className="button button--small icon-button" aria-label={`Actions for ${evidence.filename}`}>
          ⋯
        </Menu.Trigger>
        <Menu.Portal>
          <Menu.Content className="menu" align="end" sideOffset={4}>
            <Menu.Item
              className="menu__item"
              onSelect={() => {
                exclude.mutate(!evidence.excluded);
              }}
            >
              {evidence.excluded ? 'Use in the analysis again' : 'Leave out of the analysis'}
            </Menu.Item>
            <Menu.Item
              className="menu__item menu__item--danger"
              onSelect={() => {
                setConfirming(true);
              }}
            >
              Delete…
            </Menu.Item>
          </Menu.Content>
        </Menu.Portal>
      </Menu.Root>
      {exclude.isError && <ErrorMessage>Could not change it: {exclude.error.message}</ErrorMessage>}
      <Dialog.Root
        open={confirming}
        onOpenChange={(open) => {
          setConfirming(open);
          if (!open) remove.reset();
        }}
      >
        <Dialog.Portal>
          <Dialog.Overlay className="dialog__overlay" />
          <Dialog.Content className="dialog">
            <Dialog.Title className="dialog__title">Delete {evidence.filename}?</Dialog.Title>
            <Dialog.Description className="dialog__text">
              It leaves the incident now, with its findings. Anyone in the team can restore it from “Deleted files”
              until the time shown there; then the file is removed for good. The timeline says who deleted it.
            </Dialog.Description>
            {remove.isError && <ErrorMessage>Could not delete it: {remove.error.message}</ErrorMessage>}
            <form
              className="form__actions"
              onSubmit={(event) => {
                event.preventDefault();
                remove.mutate(undefined, {
                  onSuccess: () => {
                    setConfirming(false);
                  },
                });
              }}
            >
              {/* The first button takes the focus: Enter deletes, Escape (or Keep it) closes. */}
              <button type="submit" className="button button--danger" disabled={remove.isPending}>
                {remove.isPending ? 'Deleting…' : 'Delete'}
              </button>
              <Dialog.Close className="button">Keep it</Dialog.Close>
            </form>
          </Dialog.Content>
        </Dialog.Portal>
      </Dialog.Root>
    </>
  );
}
