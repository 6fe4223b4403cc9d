import { ComingSoon } from '../../components/States';

/** Placeholder: the Batches screen. */
export default function Screen() {
  return <ComingSoon title="Batches" />;
}
