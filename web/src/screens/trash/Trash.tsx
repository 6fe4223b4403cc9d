import { ComingSoon } from '../../components/States';

/** Placeholder: the Trash screen. */
export default function Screen() {
  return <ComingSoon title="Trash" />;
}
