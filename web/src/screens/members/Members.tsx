import { useState } from 'react';
import { useNavigate } from 'react-router';
import { api, call, type Schemas } from '../../api/client';
import { asApiError, fieldErrors } from '../../api/errors';
import { usePagedList } from '../../api/paging';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { PagedTable } from '../../components/DataTable';
import { FormError, SelectField, TextField } from '../../components/FormField';
import { useSession } from '../../components/session-context';
import { PageHeader } from '../../components/States';
import { useToast } from '../../components/Toasts';
import '../../components/settings-screens.css';

type Member = Schemas['MemberDto'];
type Role = Member['role'];
type Errors = { fields: Record<string, string>; general?: string };

const ROLES: ReadonlyArray<{ value: Role; label: string }> = [
  { value: 'viewer', label: 'Viewer (read only)' },
  { value: 'editor', label: 'Editor (codes, folders, tags, templates, batches)' },
  { value: 'admin', label: 'Admin (everything but ownership and plan)' },
  { value: 'owner', label: 'Owner (everything)' },
];

/** The API's answer as a sentence a person can act on (last owner, seat limit, role). */
function explain(err: unknown): string {
  const e = asApiError(err);
  if (e.code === 'last_owner') return `${e.message}.`; // the API's words already say what to do
  if (e.code === 'plan_limit_reached') return `No seat left: ${e.message}. Remove a member or cancel an invitation, or upgrade the plan.`;
  if (e.status === 403) return `Not allowed: ${e.message}`;
  return e.message;
}

/** Members and invitations: invite by e-mail with a role, change roles, remove, resend or cancel invitations. */
export default function Members() {
  const { canManage, session, signOut } = useSession();
  const navigate = useNavigate();
  const isOwner = session?.role === 'owner';
  const toast = useToast();
  const list = usePagedList((cursor) => call(api.GET('/v1/members', { params: { query: { cursor, limit: 25 } } })), '');
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<Role>('editor');
  const [errors, setErrors] = useState<Errors>({ fields: {} });
  const [busy, setBusy] = useState<string | null>(null);
  const [removing, setRemoving] = useState<Member | null>(null);
  const roles = ROLES.filter((r) => r.value !== 'owner' || isOwner);

  const invite = async (body: { email: string; role: Role }, resend = false) => {
    setBusy(resend ? body.email : 'invite');
    try {
      await call(api.POST('/v1/members', { body }));
      toast(resend ? `Invitation sent again to ${body.email}` : `Invitation sent to ${body.email}`);
      if (!resend) {
        setEmail('');
        setErrors({ fields: {} });
        list.reset();
      }
      list.reload();
    } catch (err) {
      if (resend) toast(explain(err), 'error');
      else {
        const mapped = fieldErrors(err, ['email', 'role']);
        setErrors(mapped.general ? { ...mapped, general: explain(err) } : mapped);
      }
    } finally {
      setBusy(null);
    }
  };

  const changeRole = async (m: Member, next: Role) => {
    setBusy(m.id);
    try {
      await call(api.PATCH('/v1/members/{id}', { params: { path: { id: m.id } }, body: { role: next } }));
      toast(`${m.user.email} is now ${next}`);
    } catch (err) {
      toast(explain(err), 'error');
    } finally {
      setBusy(null);
      list.reload();
    }
  };

  return (
    <>
      <PageHeader title="Members" />
      {canManage ? (
        <form
          aria-label="Invite a member"
          onSubmit={(e) => {
            e.preventDefault();
            void invite({ email, role });
          }}
        >
          <h2>Invite a member</h2>
          <p className="hint">The invitation e-mail holds a link valid 7 days. Pending invitations take a seat.</p>
          <FormError message={errors.general} />
          <TextField label="E-mail" name="email" type="email" autoComplete="off" required value={email} onChange={(e) => setEmail(e.target.value)} error={errors.fields.email} />
          <SelectField label="Role" name="role" value={role} onChange={(e) => setRole(e.target.value as Role)} options={roles} error={errors.fields.role} />
          <button type="submit" className="button" disabled={busy === 'invite'}>
            Send invitation
          </button>
        </form>
      ) : (
        <p className="hint">Only admins and owners invite members and change roles.</p>
      )}
      <h2>People in this workspace</h2>
      <PagedTable
        list={list}
        label="Members"
        empty="No members."
        caption="Members and invitations"
        rowId={(m) => m.id}
        columns={[
          {
            key: 'who',
            header: 'Member',
            render: (m) => (
              <>
                {m.user.name && <div>{m.user.name}</div>}
                <div>{m.user.email}</div>
              </>
            ),
          },
          {
            key: 'status',
            header: 'Status',
            render: (m) => (
              <>
                <span className={`badge badge-${m.status}`}>{m.status === 'invited' ? 'Invited' : 'Active'}</span>
                {m.status === 'invited' && m.invitation_expires_at && (
                  <div className="hint">{new Date(m.invitation_expires_at).getTime() < Date.now() ? 'Expired' : `Expires ${new Date(m.invitation_expires_at).toLocaleDateString()}`}</div>
                )}
              </>
            ),
          },
          {
            key: 'role',
            header: 'Role',
            render: (m) =>
              canManage && (m.role !== 'owner' || isOwner) ? (
                <SelectField
                  label={`Role of ${m.user.email}`}
                  value={m.role}
                  disabled={busy === m.id}
                  onChange={(e) => void changeRole(m, e.target.value as Role)}
                  options={roles.map((r) => ({ value: r.value, label: r.value }))}
                />
              ) : (
                m.role
              ),
          },
          {
            key: 'actions',
            header: 'Actions',
            // An admin manages everyone but owners (only an owner removes an owner or cancels an owner's invitation).
            render: (m) =>
              canManage && (m.role !== 'owner' || isOwner) ? (
                <div className="actions">
                  {m.status === 'invited' && (
                    <button
                      type="button"
                      className="button secondary"
                      disabled={busy === m.user.email}
                      aria-label={`Resend invitation to ${m.user.email}`}
                      onClick={() => void invite({ email: m.user.email, role: m.role }, true)}
                    >
                      Resend
                    </button>
                  )}
                  <button
                    type="button"
                    className="button danger"
                    aria-label={m.status === 'invited' ? `Cancel invitation of ${m.user.email}` : `Remove ${m.user.email}`}
                    onClick={() => setRemoving(m)}
                  >
                    {m.status === 'invited' ? 'Cancel invitation' : 'Remove'}
                  </button>
                </div>
              ) : null,
          },
        ]}
      />
      <ConfirmDialog
        isOpen={removing !== null}
        onOpenChange={(o) => !o && setRemoving(null)}
        title={removing?.status === 'invited' ? `Cancel the invitation of ${removing?.user.email ?? ''}?` : `Remove ${removing?.user.email ?? ''}?`}
        confirmLabel={removing?.status === 'invited' ? 'Cancel invitation' : 'Remove member'}
        destructive
        onConfirm={async () => {
          if (!removing) return;
          try {
            await call(api.DELETE('/v1/members/{id}', { params: { path: { id: removing.id } } }));
            toast(removing.status === 'invited' ? `Invitation of ${removing.user.email} cancelled` : `${removing.user.email} removed`);
            list.reload();
          } catch (err) {
            toast(explain(err), 'error');
          }
        }}
      >
        <p>{removing?.status === 'invited' ? 'The link in the invitation stops working.' : 'Their sessions in this workspace end at once.'}</p>
      </ConfirmDialog>
      <h2>Your sessions</h2>
      <p className="hint">Signed in on another device or browser you no longer use? End every session of your account, in every workspace, this one included.</p>
      <button
        type="button"
        className="button secondary"
        onClick={async () => {
          await signOut(true); // DELETE /v1/session?all=true
          void navigate('/sign-in', { replace: true });
        }}
      >
        Sign out everywhere
      </button>
    </>
  );
}
