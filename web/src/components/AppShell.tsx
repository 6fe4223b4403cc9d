import { useEffect, useState } from 'react';
import { Navigate, NavLink, Outlet, useLocation, useNavigate } from 'react-router';
import { useSession } from './session-context';
import { ErrorState, Loading } from './States';
import { WorkspaceSwitcher } from './WorkspaceSwitcher';

/** Every screen of the signed-in app, in navigation order. */
export const NAV: ReadonlyArray<{ to: string; label: string; managers?: true }> = [
  { to: '/codes', label: 'QR codes' },
  { to: '/analytics', label: 'Analytics' },
  { to: '/batches', label: 'Batches' },
  { to: '/folders', label: 'Folders' },
  { to: '/tags', label: 'Tags' },
  { to: '/templates', label: 'Templates' },
  { to: '/domains', label: 'Domains' },
  { to: '/webhooks', label: 'Webhooks' },
  { to: '/events', label: 'Events' },
  { to: '/api-keys', label: 'API keys', managers: true },
  { to: '/members', label: 'Members' },
  { to: '/audit', label: 'Audit log', managers: true },
  { to: '/trash', label: 'Trash' },
];

/**
 * The frame of every signed-in screen: a skip link, the header (workspace switcher, sign out), the navigation (a
 * disclosure on a phone) and the main region. Sends signed-out visitors to sign-in, keeping where they were going.
 */
export function AppShell() {
  const { status, me, session, signOut, restoreError, restore, canManage } = useSession();
  const location = useLocation();
  const navigate = useNavigate();
  const [menuOpen, setMenuOpen] = useState(false);
  useEffect(() => setMenuOpen(false), [location.pathname]);

  if (status === 'loading') return <Loading label="Signing in…" />;
  if (status === 'unavailable' && restoreError) {
    return (
      <main className="auth-page">
        <div className="auth-card">
          <h1>Scanlink</h1>
          <ErrorState error={restoreError} onRetry={restore} />
        </div>
      </main>
    );
  }
  if (status === 'signed-out' || !session) {
    const next = location.pathname + location.search;
    return <Navigate to={`/sign-in${next && next !== '/' ? `?next=${encodeURIComponent(next)}` : ''}`} replace />;
  }
  return (
    <div className="shell">
      <a
        className="skip-link"
        href="#main"
        onClick={(e) => {
          // Focus the main region without a hash navigation (the router would treat it as a new page).
          e.preventDefault();
          document.getElementById('main')?.focus();
        }}
      >
        Skip to main content
      </a>
      <header className="topbar">
        <NavLink to="/codes" className="brand">
          Scanlink
        </NavLink>
        <button type="button" className="button secondary menu-toggle" aria-expanded={menuOpen} aria-controls="main-nav" onClick={() => setMenuOpen((o) => !o)}>
          Menu
        </button>
        <div className="topbar-end">
          <WorkspaceSwitcher />
          <span className="who" title={session.user.email}>
            {me?.name || session.user.email} <span className="role">({session.role})</span>
          </span>
          <button
            type="button"
            className="button secondary"
            onClick={async () => {
              await signOut();
              void navigate('/sign-in', { replace: true });
            }}
          >
            Sign out
          </button>
        </div>
      </header>
      <div className="layout">
        <nav id="main-nav" aria-label="Main" className={`sidenav${menuOpen ? ' open' : ''}`}>
          <ul>
            {NAV.filter((n) => !n.managers || canManage).map((n) => (
              <li key={n.to}>
                <NavLink to={n.to}>{n.label}</NavLink>
              </li>
            ))}
          </ul>
        </nav>
        <main id="main" tabIndex={-1}>
          {/* Keyed by workspace: switching remounts the screen, so nothing of the previous workspace stays on it. */}
          <Outlet key={session.organizationId} />
        </main>
      </div>
    </div>
  );
}
