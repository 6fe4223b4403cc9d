import { useId, useState } from 'react';
import { useNavigate } from 'react-router';
import { asApiError } from '../api/errors';
import { useSession } from './session-context';
import { useToast } from './Toasts';

/** The workspaces of the signed-in user (`GET /v1/users/me` memberships); choosing one calls `POST /v1/session/switch`. */
export function WorkspaceSwitcher() {
  const { me, session, switchWorkspace } = useSession();
  const toast = useToast();
  const navigate = useNavigate();
  const id = useId();
  const [busy, setBusy] = useState(false);
  if (!me || !session) return null;
  const current = me.memberships.find((m) => m.organization_id === session.organizationId);
  if (me.memberships.length < 2) return <span className="workspace">{current?.name ?? session.organizationId}</span>;
  return (
    <div className="switcher">
      <label htmlFor={id} className="visually-hidden">
        Workspace
      </label>
      <select
        id={id}
        value={session.organizationId}
        disabled={busy}
        onChange={async (e) => {
          const chosen = e.target.value;
          setBusy(true);
          // To the code list first: a screen of one workspace's resource (a code, a batch) would otherwise ask for it
          // again with the other workspace's session, and be answered 404.
          await navigate('/codes');
          try {
            await switchWorkspace(chosen);
            toast(`Switched to ${me.memberships.find((m) => m.organization_id === chosen)?.name ?? 'workspace'}`);
          } catch (err) {
            toast(asApiError(err).message, 'error');
          } finally {
            setBusy(false);
          }
        }}
      >
        {me.memberships.map((m) => (
          <option key={m.organization_id} value={m.organization_id}>
            {m.name} ({m.role})
          </option>
        ))}
      </select>
    </div>
  );
}
