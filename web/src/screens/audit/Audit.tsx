import { ComingSoon } from '../../components/States';

/** Placeholder: the Audit log screen. */
export default function Screen() {
  return <ComingSoon title="Audit log" />;
}
