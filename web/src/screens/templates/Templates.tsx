import { ComingSoon } from '../../components/States';

/** Placeholder: the Templates screen. */
export default function Screen() {
  return <ComingSoon title="Templates" />;
}
