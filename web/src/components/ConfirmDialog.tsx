import type { ReactNode } from 'react';
import { Button, Dialog, Heading, Modal } from 'react-aria-components';

/**
 * A modal question with Cancel and a confirm button (react-aria: focus is trapped, Escape cancels, focus returns to the
 * opener). Controlled: `isOpen` / `onOpenChange`.
 */
export function ConfirmDialog({
  isOpen,
  onOpenChange,
  title,
  children,
  confirmLabel,
  destructive,
  onConfirm,
}: {
  isOpen: boolean;
  onOpenChange: (open: boolean) => void;
  title: string;
  children?: ReactNode;
  confirmLabel: string;
  destructive?: boolean;
  onConfirm: () => void | Promise<void>;
}) {
  return (
    <Modal isOpen={isOpen} onOpenChange={onOpenChange} isDismissable className="modal" >
      <Dialog role="alertdialog" className="dialog">
        {({ close }) => (
          <>
            <Heading slot="title">{title}</Heading>
            {children}
            <div className="actions">
              <Button className="button secondary" onPress={close}>
                Cancel
              </Button>
              <Button
                className={`button${destructive ? ' danger' : ''}`}
                onPress={async () => {
                  await onConfirm();
                  close();
                }}
              >
                {confirmLabel}
              </Button>
            </div>
          </>
        )}
      </Dialog>
    </Modal>
  );
}
