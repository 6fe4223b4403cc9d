import { ComingSoon } from '../../components/States';

/** Placeholder: the Tags screen. */
export default function Screen() {
  return <ComingSoon title="Tags" />;
}
