import { createContext, useCallback, useContext, useEffect, useState, type ReactNode } from 'react';
import { call, api, refreshSession, rawJson } from '../api/client';
import type { ApiError } from '../api/errors';
import { fromSessionAnswer, getSession, onSessionChange, setSession, type SessionInfo } from '../api/session';

export interface Membership {
  organization_id: string;
  name: string;
  role: string;
}
export interface Me {
  id: string;
  email: string;
  name: string | null;
  has_password: boolean;
  memberships: Membership[];
}

interface SessionState {
  /** `unavailable`: restoring the session on load got no usable answer (network, 429, 5xx); see `restoreError`. */
  status: 'loading' | 'signed-in' | 'signed-out' | 'unavailable';
  session: SessionInfo | null;
  restoreError: ApiError | null;
  /** Asks for the session again (after `unavailable`). */
  restore(): void;
  me: Me | null;
  /** Roles that may change codes, folders, tags, templates and batches. */
  canEdit: boolean;
  /** Admin or owner: keys, members, webhooks, domains, audit log. */
  canManage: boolean;
  switchWorkspace(organizationId: string): Promise<void>;
  signOut(everywhere?: boolean): Promise<void>;
  reloadMe(): void;
}

const Ctx = createContext<SessionState | null>(null);

export function useSession(): SessionState {
  const v = useContext(Ctx);
  if (!v) throw new Error('useSession outside SessionProvider');
  return v;
}

/** Holds the signed-in state: restores a session from the refresh cookie on load, and loads `GET /v1/users/me`. */
export function SessionProvider({ children }: { children: ReactNode }) {
  const [session, setLocal] = useState<SessionInfo | null>(getSession());
  const [status, setStatus] = useState<SessionState['status']>(getSession() ? 'signed-in' : 'loading');
  const [me, setMe] = useState<Me | null>(null);
  const [meTick, setMeTick] = useState(0);

  useEffect(
    () =>
      onSessionChange((s) => {
        setLocal(s);
        setStatus(s ? 'signed-in' : 'signed-out');
      }),
    [],
  );
  const [restoreError, setRestoreError] = useState<ApiError | null>(null);
  // A reload: a new token from the refresh cookie. An outage is not a sign-out: it is shown with a Retry.
  const restore = useCallback(() => {
    setRestoreError(null);
    setStatus('loading');
    void refreshSession().then((r) => {
      if (r.ok) return;
      if (r.error) {
        setRestoreError(r.error);
        setStatus('unavailable');
      } else setStatus('signed-out');
    });
  }, []);
  useEffect(() => {
    if (!getSession()) restore();
  }, [restore]);
  useEffect(() => {
    if (!session) return setMe(null);
    let live = true;
    call(api.GET('/v1/users/me')).then(
      (m) => live && setMe(m as unknown as Me),
      () => undefined,
    );
    return () => {
      live = false;
    };
  }, [session?.organizationId, session?.user.id, meTick]);

  const switchWorkspace = useCallback(async (organizationId: string) => {
    const answer = await rawJson<unknown>('/v1/session/switch', { method: 'POST', json: { organization_id: organizationId } });
    setSession(fromSessionAnswer(answer));
  }, []);
  const signOut = useCallback(async (everywhere = false) => {
    await rawJson(`/v1/session${everywhere ? '?all=true' : ''}`, { method: 'DELETE', credentials: 'include' }).catch(() => undefined);
    setSession(null);
  }, []);

  const role = session?.role ?? 'viewer';
  const value: SessionState = {
    status,
    session,
    restoreError,
    restore,
    me,
    canEdit: ['owner', 'admin', 'editor'].includes(role),
    canManage: ['owner', 'admin'].includes(role),
    switchWorkspace,
    signOut,
    reloadMe: () => setMeTick((t) => t + 1),
  };
  return <Ctx.Provider value={value}>{children}</Ctx.Provider>;
}
