'use strict';
/** `npm test`'s last line: passed, failed and skipped counts, from Jest's own results (no results file is written).
 * On stderr, where Jest's own reporters write, so it comes after their summary. */
class SummaryReporter {
  onRunComplete(_contexts, r) {
    // scripts/test.js runs Jest twice (the isolated files last) and prints one line for both from this tally.
    if (process.env.SCANLINK_TEST_TALLY) {
      require('node:fs').appendFileSync(process.env.SCANLINK_TEST_TALLY, `${JSON.stringify([r.numPassedTests, r.numFailedTests, r.numPendingTests + r.numTodoTests])}\n`);
      return;
    }
    process.stderr.write(`\n${r.numPassedTests} passed, ${r.numFailedTests} failed, ${r.numPendingTests + r.numTodoTests} skipped\n`);
  }
}
module.exports = SummaryReporter;
