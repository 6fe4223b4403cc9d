import { ComingSoon } from '../../components/States';

/** Placeholder: the Analytics screen. */
export default function Screen() {
  return <ComingSoon title="Analytics" />;
}
