import { ComingSoon } from '../../components/States';

/** Placeholder: the Batch screen. */
export default function Screen() {
  return <ComingSoon title="Batch" />;
}
