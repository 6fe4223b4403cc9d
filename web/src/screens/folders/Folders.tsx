import { ComingSoon } from '../../components/States';

/** Placeholder: the Folders screen. */
export default function Screen() {
  return <ComingSoon title="Folders" />;
}
