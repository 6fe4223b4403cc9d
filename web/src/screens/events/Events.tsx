import { ComingSoon } from '../../components/States';

/** Placeholder: the Events screen. */
export default function Screen() {
  return <ComingSoon title="Events" />;
}
