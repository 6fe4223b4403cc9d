import { ComingSoon } from '../../components/States';

/** Placeholder: the Members screen. */
export default function Screen() {
  return <ComingSoon title="Members" />;
}
