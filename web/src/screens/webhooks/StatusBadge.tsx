/** An endpoint's status, with the reason it was disabled. */
export function StatusBadge({ status, reason }: { status: string; reason?: string | null }) {
  const label = status === 'auto_disabled' ? 'Disabled automatically' : status === 'disabled' ? 'Disabled' : status === 'enabled' ? 'Enabled' : status;
  return (
    <span className={`badge badge-${status}`}>
      {label}
      {reason && status !== 'enabled' ? ` (${reason.replace(/_/g, ' ')})` : ''}
    </span>
  );
}
