import { Gs1Error } from '../gs1.error';

/** Runs `fn` and returns the `gs1Code` and `field` of the Gs1Error it throws; fails the test when it accepts. */
export function gs1Refusal(fn: () => unknown): Pick<Gs1Error, 'gs1Code' | 'field'> {
  try {
    fn();
  } catch (e) {
    if (e instanceof Gs1Error) return { gs1Code: e.gs1Code, field: e.field };
    throw e;
  }
  throw new Error('accepted, but a Gs1Error was expected');
}
